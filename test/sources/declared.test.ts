import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { declaredSources, SourcesConfigError } from "@/lib/sources/declared";
import { unkeyedFingerprint } from "@/lib/sources/secret-box";

const FILE = "/etc/ledger/sources.json";

function declare(file: unknown, vars: Record<string, string> = {}, legacy: Record<string, string> = {}) {
  const env = parseEnv({ SOURCES_FILE: FILE, ...legacy });
  return declaredSources(env, {
    envVar: (name) => vars[name],
    readFile: (path) => {
      expect(path).toBe(FILE);
      return typeof file === "string" ? file : JSON.stringify(file);
    },
    fingerprint: unkeyedFingerprint,
  });
}

const error = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SourcesConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a SourcesConfigError");
};

describe("SOURCES_FILE", () => {
  it("[sources] the issue's example declares a Stripe source whose secrets come from the named variable", () => {
    const sources = declare(
      [{ slug: "stripe-eu", provider: "stripe", name: "Stripe EU", secretsEnv: "STRIPE_EU_WEBHOOK_SECRET" }],
      { STRIPE_EU_WEBHOOK_SECRET: "whsec_eu0000000a, whsec_eu0000000b" },
    );
    expect(sources).toMatchObject([
      {
        slug: "stripe-eu",
        provider: "stripe",
        name: "Stripe EU",
        state: "active",
        origin: { kind: "file", path: FILE, index: 0, secretsEnv: "STRIPE_EU_WEBHOOK_SECRET" },
      },
    ]);
    expect(sources[0]!.secrets.map((s) => s.value)).toEqual(["whsec_eu0000000a", "whsec_eu0000000b"]);
  });

  it("[sources] the six legacy variables still declare the sources named after their kind, before the file's", () => {
    const sources = declare(
      [{ slug: "shop-eu", provider: "shopify", name: "EU shop", secretsEnv: "SHOP_EU" }],
      { SHOP_EU: "shop-eu-secret-1" },
      { STRIPE_WEBHOOK_SECRET: "whsec_legacy0000", SLACK_SIGNING_SECRET: "slack-signing-secret" },
    );
    expect(sources.map((s) => [s.slug, s.provider, s.origin.kind])).toEqual([
      ["stripe", "stripe", "env"],
      ["slack", "slack", "env"],
      ["shop-eu", "shopify", "file"],
    ]);
  });

  it("[sources] every error names the offending entry", () => {
    const ok = { slug: "a", provider: "stripe", name: "A", secretsEnv: "A_SECRET" };
    const vars = { A_SECRET: "whsec_a0000000000", B_SECRET: "whsec_b0000000000" };
    expect(error(() => declare("{not json", vars))).toMatch(
      /^SOURCES_FILE \/etc\/ledger\/sources.json: not valid JSON/,
    );
    expect(error(() => declare({ slug: "a" }, vars))).toMatch(/must be a JSON array/);
    expect(error(() => declare([ok, { ...ok, slug: "Bad Slug" }], vars))).toMatch(
      /entry 2 \("Bad Slug"\): slug: lowercase letters/,
    );
    expect(error(() => declare([ok, { ...ok, slug: "b", provider: "mailchimp" }], vars))).toMatch(
      /entry 2 \("b"\): provider:/,
    );
    expect(error(() => declare([ok, { ...ok, slug: "b", secretsEnv: "B_MISSING" }], vars))).toMatch(
      /entry 2 \("b"\): B_MISSING is not set/,
    );
    expect(error(() => declare([ok, { ...ok }], vars))).toMatch(/entry 2 \("a"\): slug "a" is already declared above/);
    expect(
      error(() => declare([{ ...ok, slug: "stripe" }], vars, { STRIPE_WEBHOOK_SECRET: "whsec_s0000000000" })),
    ).toMatch(/entry 1 \("stripe"\): slug "stripe" is already declared by STRIPE_WEBHOOK_SECRET/);
    expect(error(() => declare([{ ...ok, secret: "inline" }], vars))).toMatch(/entry 1 \("a"\): .*secret/);
    expect(error(() => declare([{ ...ok, provider: "generic" }], vars))).toMatch(/entry 1 \("a"\): options: /);
  });

  it("[sources] a disabled entry needs no secrets; a generic one is checked against its kind's options", () => {
    const sources = declare(
      [
        { slug: "old", provider: "github", name: "Old hook", state: "disabled", secretsEnv: "OLD_HOOK" },
        {
          slug: "lemon",
          provider: "generic",
          name: "Lemon Squeezy",
          secretsEnv: "LEMON",
          options: {
            signatureHeader: "X-Signature",
            algorithm: "sha256",
            encoding: "hex",
            eventId: { hashOf: ["meta.event_name", "data.id", "data.attributes.updated_at"] },
            eventType: { header: "X-Event-Name" },
          },
        },
      ],
      { LEMON: "lemon-secret" },
    );
    expect(sources.map((s) => [s.slug, s.state, s.secrets.length])).toEqual([
      ["old", "disabled", 0],
      ["lemon", "active", 1],
    ]);
  });
});
