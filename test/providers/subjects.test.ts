import { describe, expect, it } from "vitest";
import { extractSubjectIds, subjectExtraction } from "@/lib/ledger/subjects";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { githubPush } from "@/test/fixtures/github-push";
import { paddleSubscriptionEvent } from "@/test/fixtures/paddle";
import { shopifyOrder } from "@/test/fixtures/shopify";
import { slackEventCallback } from "@/test/fixtures/slack";
import { standardEvent } from "@/test/fixtures/standard";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";

/** As the receiver sees it: parsed from the bytes on the wire. */
const parsed = (payload: unknown): unknown => JSON.parse(JSON.stringify(payload));

describe("extractSubjectIds", () => {
  it("[subjects] a Stripe subscription event yields its cus_, sub_ and price_ ids", () => {
    const ids = extractSubjectIds(
      parsed(
        stripeSubscriptionEvent({
          customerId: "cus_Q1w2E3r4T5y6U7",
          subscriptionId: "sub_1P4nHlLgUG5tbmjcAbCdEf01",
          priceId: "price_1P4nHlLgUG5tbmjcPrIcE001",
        }),
      ),
    );
    expect(ids).toEqual(
      expect.arrayContaining(["cus_Q1w2E3r4T5y6U7", "sub_1P4nHlLgUG5tbmjcAbCdEf01", "price_1P4nHlLgUG5tbmjcPrIcE001"]),
    );
  });

  it("[subjects] a Stripe invoice.paid event yields the customer, the subscription and the lower-cased customer email", () => {
    const ids = extractSubjectIds(
      parsed(
        stripeInvoicePaidEvent({
          customerId: "cus_NZbFQAsc0ptasX",
          subscriptionId: "sub_1MoqxHLgUG5tbmjcG8lOfx2N",
          customerEmail: "Jenny.Rosen@Example.COM",
        }),
      ),
    );
    expect(ids).toEqual(
      expect.arrayContaining(["cus_NZbFQAsc0ptasX", "sub_1MoqxHLgUG5tbmjcG8lOfx2N", "jenny.rosen@example.com"]),
    );
    expect(ids).not.toContain("Jenny.Rosen@Example.COM");
  });

  it("[subjects] a Paddle subscription event yields its ctm_, sub_ and pri_ ids", () => {
    const ids = extractSubjectIds(
      parsed(
        paddleSubscriptionEvent({
          customerId: "ctm_01hv6y1jedq4p1n0yqn5ba3ky4",
          subscriptionId: "sub_01hv8x29kz0t586xy6zn1a62ny",
          priceId: "pri_01gsz8x8sawmvhz1pv30nge1ke",
        }),
      ),
    );
    expect(ids).toEqual(
      expect.arrayContaining([
        "ctm_01hv6y1jedq4p1n0yqn5ba3ky4",
        "sub_01hv8x29kz0t586xy6zn1a62ny",
        "pri_01gsz8x8sawmvhz1pv30nge1ke",
      ]),
    );
  });

  it("[subjects] a Shopify order yields the numeric customer id, the order id and the lower-cased email", () => {
    const ids = extractSubjectIds(
      parsed(shopifyOrder({ id: 5745183776802, customerId: 7013312364735, email: "Jon.Snow@Example.com" })),
    );
    expect(ids).toEqual(expect.arrayContaining(["7013312364735", "5745183776802", "jon.snow@example.com"]));
    expect(ids).not.toContain("Jon.Snow@Example.com");
  });

  it("[subjects] a Shopify order yields no money amounts or timestamps", () => {
    const ids = extractSubjectIds(parsed(shopifyOrder({ totalPrice: "199.00" })));
    expect(ids).not.toContain("199.00");
    expect(ids).not.toContain("2024-04-12T06:18:49-04:00");
    expect(ids).not.toContain("1042");
  });

  it("[subjects] a GitHub issue event yields the issue id and the sender's login", () => {
    const ids = extractSubjectIds(parsed(githubIssuesOpened({ issueId: 444500041, author: { login: "octocat" } })));
    expect(ids).toEqual(expect.arrayContaining(["444500041", "octocat"]));
  });

  it("[subjects] a GitHub ssh clone url is not mistaken for an email", () => {
    const ids = extractSubjectIds(parsed(githubIssuesOpened({ repository: { fullName: "acme/widgets" } })));
    expect(ids).not.toContain("git@github.com:acme/widgets.git");
  });

  it("[subjects] a Standard Webhooks payload yields its prefixed ids and the lower-cased email", () => {
    const ids = extractSubjectIds(
      parsed(standardEvent({ customerId: "cust_7Hq2Lm9XkA3pZt", email: "Ada.Lovelace@Example.org" })),
    );
    expect(ids).toEqual(expect.arrayContaining(["cust_7Hq2Lm9XkA3pZt", "ada.lovelace@example.org"]));
  });

  it("[subjects] a Slack event yields the authorized user id", () => {
    expect(extractSubjectIds(parsed(slackEventCallback()))).toContain("U0JD3BPNC");
  });

  it("[subjects] every id appears once even when the payload repeats it", () => {
    const ids = extractSubjectIds(parsed(stripeSubscriptionEvent({ subscriptionId: "sub_1P4nHlLgUG5tbmjcAbCdEf01" })));
    expect(ids.filter((id) => id === "sub_1P4nHlLgUG5tbmjcAbCdEf01")).toHaveLength(1);
  });

  it("[subjects] a payload with 10,000 distinct ids yields at most 64", () => {
    const payload = {
      data: Array.from({ length: 10_000 }, (_, i) => ({ customer: `cus_${String(i).padStart(8, "0")}AbC` })),
    };
    const ids = extractSubjectIds(payload);
    expect(ids).toHaveLength(64);
    expect(ids[0]).toBe("cus_00000000AbC");
  });

  it("[subjects] a 50-deep nesting does not throw and keeps the shallow ids only", () => {
    let payload: Record<string, unknown> = { customer: "cus_Level49Deepest" };
    for (let level = 48; level >= 0; level--) {
      payload = { customer: `cus_Level${String(level).padStart(2, "0")}Id`, child: payload };
    }
    const ids = extractSubjectIds(payload);
    expect(ids).toContain("cus_Level00Id");
    expect(ids).not.toContain("cus_Level49Deepest");
    expect(ids.length).toBeLessThanOrEqual(64);
  });

  it("[subjects] a string longer than an email can be is ignored", () => {
    expect(extractSubjectIds({ email: `${"a".repeat(400)}@example.com` })).toEqual([]);
  });

  it.each([
    [null, []],
    [undefined, []],
    [42, []],
    [[], []],
    ["cus_NZbFQAsc0ptasX", ["cus_NZbFQAsc0ptasX"]],
  ])("[subjects] a non-object payload %j yields %j without throwing", (payload, expected) => {
    expect(extractSubjectIds(payload)).toEqual(expected);
  });
});

describe("extractSubjectIds ignores enum values", () => {
  it("[subjects] lowercase enum values shaped like ids (charge_automatically, event_callback) are not subjects", () => {
    const ids = extractSubjectIds({
      collection_method: "charge_automatically",
      type: "event_callback",
      reason: "url_verification",
      customer: "cus_Q1w2E3r4T5y6U7",
    });
    expect(ids).toEqual(["cus_Q1w2E3r4T5y6U7"]);
  });

  it("[subjects] Slack's team, channel and user ids are subjects", () => {
    const ids = extractSubjectIds({ team_id: "T0001", event: { channel: "C2147483705", user: "U2147483697" } });
    expect(ids).toEqual(["T0001", "C2147483705", "U2147483697"]);
  });
});

describe("extractSubjectIds: addresses in use, and where it stops", () => {
  it.each([
    "o'connor@example.com",
    "jenny+receipts@example.com",
    "first.middle.last@example.co.uk",
    "d'arcy.o'neil+x@example.org",
  ])("[subjects] an email with an apostrophe, a plus or dots in its local part (%s) is a subject", (email) => {
    expect(extractSubjectIds(parsed({ customer_email: email.toUpperCase() }))).toEqual([email]);
  });

  it("[subjects] a Stripe customer o'connor@example.com is found by its email", () => {
    const ids = extractSubjectIds(
      parsed({ object: "customer", id: "cus_OConnorCust0001", email: "O'Connor@Example.com" }),
    );
    expect(ids).toEqual(expect.arrayContaining(["cus_OConnorCust0001", "o'connor@example.com"]));
  });

  it("[subjects] a push of 70 commits stops at 64 ids and says it was cut, so the 70th author is not among them", () => {
    const authors = Array.from({ length: 70 }, (_, i) => ({ name: `A${i}`, email: `author${i + 1}@example.com` }));
    authors[69] = { name: "Late Author", email: "late.author@example.com" };
    const out = subjectExtraction(parsed(githubPush({ authors })));
    expect(out.ids).toHaveLength(64);
    expect(out.ids).not.toContain("late.author@example.com");
    expect(out.truncated).toBe("ids");
  });

  it("[subjects] a payload nesting past eight levels says it was cut at the depth; a shallow one says nothing", () => {
    let deep: Record<string, unknown> = { customer: "cus_DeepestLevel01" };
    for (let i = 0; i < 10; i++) deep = { child: deep };
    expect(subjectExtraction(deep)).toEqual({ ids: [], truncated: "depth" });
    expect(subjectExtraction(parsed(stripeSubscriptionEvent()))).not.toHaveProperty("truncated");
    expect(subjectExtraction(parsed(githubPush()))).not.toHaveProperty("truncated");
  });

  it("[subjects] exactly 64 ids is not a cut; a 65th is", () => {
    const ids = (n: number) => ({
      data: Array.from({ length: n }, (_, i) => ({ customer: `cus_${String(i).padStart(8, "0")}AbC` })),
    });
    expect(subjectExtraction(ids(64))).not.toHaveProperty("truncated");
    expect(subjectExtraction(ids(65)).truncated).toBe("ids");
  });
});
