import { describe, expect, it } from "vitest";
import { PROVIDER_KINDS } from "@/lib/providers/types";
import { secretHint } from "@/lib/sources/secret-hints";

describe("where a source's secret comes from", () => {
  it("[sources] a Stripe source says Stripe issues its whsec_ secret in the Dashboard, to paste, not to generate", () => {
    const hint = secretHint("stripe");
    expect(hint.issuedBy).toBe("provider");
    expect(hint.text).toMatch(/Dashboard → Developers → Webhooks/);
    expect(hint.text).toMatch(/whsec_/);
    expect(hint.text).not.toMatch(/to paste there/);
  });

  it("[sources] each kind says where its secret comes from: GitHub's you choose, Shopify's, Paddle's and Slack's they issue", () => {
    for (const kind of PROVIDER_KINDS) expect(secretHint(kind).text.length).toBeGreaterThan(20);
    expect(secretHint("github")).toMatchObject({ issuedBy: "you" });
    expect(secretHint("github").text).toMatch(/repository's Settings → Webhooks/);
    expect(secretHint("shopify").text).toMatch(/client secret/);
    expect(secretHint("shopify").text).toMatch(/Partner Dashboard/);
    expect(secretHint("paddle").text).toMatch(/notification destination/);
    expect(secretHint("paddle").text).toMatch(/secret key/i);
    expect(secretHint("slack").text).toMatch(/Signing Secret/);
    expect(secretHint("standard")).toMatchObject({ issuedBy: "either" });
    expect(secretHint("standard").text).toMatch(/whsec_/);
  });
});
