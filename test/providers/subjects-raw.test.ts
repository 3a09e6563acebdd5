import { describe, expect, it } from "vitest";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { githubIssuesOpened, githubPullRequestEvent } from "@/test/fixtures/github";
import { SHOPIFY_TEST_ORDER_TEXT, shopifyOrder } from "@/test/fixtures/shopify";

/** As the receiver sees it: the exact text, and what JSON.parse makes of it. */
const wire = (text: string) => [JSON.parse(text), text] as const;

describe("extractSubjectIds: GitHub repositories", () => {
  it("[subjects] a GitHub event yields its repository's owner/name", () => {
    const payload = githubIssuesOpened({ repository: { fullName: "octo-org/octo-repo" } });
    expect(extractSubjectIds(...wire(JSON.stringify(payload)))).toContain("octo-org/octo-repo");
  });

  it("[subjects] a pull_request event yields the repository full_name next to the pull request id", () => {
    const payload = githubPullRequestEvent({ pullRequestId: 279147437, repository: { fullName: "acme/widgets.js" } });
    expect(extractSubjectIds(payload)).toEqual(expect.arrayContaining(["279147437", "acme/widgets.js"]));
  });

  it.each(["Jenny Rosen", "octo-org/", "/octo-repo", "a/b/c", "-octo/repo", "octo org/repo", `${"a".repeat(40)}/repo`])(
    "[subjects] a full_name %j that is not owner/name is not a subject",
    (fullName) => {
      expect(extractSubjectIds({ full_name: fullName })).toEqual([]);
    },
  );

  it("[subjects] owner/name is a subject only under full_name, not as any string", () => {
    expect(extractSubjectIds({ description: "see octo-org/octo-repo", path: "src/index" })).toEqual([]);
  });
});

describe("extractSubjectIds: ids beyond 2^53", () => {
  it("[subjects] Shopify's test order yields its 18-digit order, customer and address ids exactly, from the text", () => {
    const ids = extractSubjectIds(...wire(SHOPIFY_TEST_ORDER_TEXT));
    expect(ids).toEqual(
      expect.arrayContaining(["820982911946154508", "115310627314723954", "715243470612851245", "866550311766439020"]),
    );
    // What JSON.parse would have made of them, had they been taken from the parsed tree.
    expect(ids).not.toContain("820982911946154500");
    expect(ids).not.toContain("115310627314723950");
  });

  it("[subjects] without the text, rounded ids are skipped rather than stored wrong", () => {
    const ids = extractSubjectIds(JSON.parse(SHOPIFY_TEST_ORDER_TEXT));
    expect(ids.some((id) => /^\d{17,}$/.test(id))).toBe(false);
    expect(ids).toContain("john@example.com");
  });

  it("[subjects] a safe integer still comes from the parsed tree, once", () => {
    const [payload, text] = wire(JSON.stringify(shopifyOrder({ id: 5745183776802, customerId: 7013312364735 })));
    const ids = extractSubjectIds(payload, text);
    expect(ids.filter((id) => id === "5745183776802")).toHaveLength(1);
    expect(ids).toContain("7013312364735");
  });

  it("[subjects] a big number under a key that names no object (a price, a total) is not a subject", () => {
    expect(extractSubjectIds(...wire('{"total_cents":90071992547409930,"product_id":820982911946154508}'))).toEqual([]);
  });

  it("[subjects] a big number that is a float is not an id", () => {
    expect(extractSubjectIds(...wire('{"id":9007199254740993.5,"user_id":90071992547409931e2}'))).toEqual([]);
  });

  it("[subjects] an id key quoted inside a string value is not read as a key", () => {
    const text = JSON.stringify({ note: 'copied: "id": 820982911946154508', id: "ord_x" });
    expect(extractSubjectIds(...wire(text))).not.toContain("820982911946154508");
  });

  it("[subjects] whitespace around the colon (pretty-printed bodies) is allowed", () => {
    expect(extractSubjectIds(...wire('{\n  "customer_id" : 115310627314723954\n}'))).toEqual(["115310627314723954"]);
  });

  it("[subjects] 10,000 big ids in the text yield at most 64 subjects", () => {
    const text = `[${Array.from({ length: 10_000 }, (_, i) => `{"id":${820982911946154508n + BigInt(i)}}`).join(",")}]`;
    expect(extractSubjectIds(JSON.parse(text), text)).toHaveLength(64);
  });

  it("[subjects] a 1 MB hostile body (id keys before long digit runs and long whitespace) is scanned quickly", () => {
    const unit = `"id":${"9".repeat(200)} "id"${" ".repeat(200)}"user_id":   ${"1".repeat(39)}`;
    const hostile = unit.repeat(Math.floor((1 << 20) / unit.length));
    const started = performance.now();
    const ids = extractSubjectIds({}, hostile);
    expect(performance.now() - started).toBeLessThan(500);
    expect(ids.length).toBeLessThanOrEqual(64);
  });
});
