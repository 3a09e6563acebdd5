import { createHmac, generateKeyPairSync, randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { parseEnv } from "@/lib/env";
import { ValidationError } from "@/lib/errors";
import { standard } from "@/lib/providers/standard";
import type { ProviderKind } from "@/lib/providers/types";
import { standardEvent } from "@/lib/samples/standard";
import { declaredSources, SourcesConfigError } from "@/lib/sources/declared";
import { createSourceDirectory } from "@/lib/sources/directory";
import { addSourceSecret, createSource, type ManageContext } from "@/lib/sources/manage";
import { createSecretBox, unkeyedFingerprint } from "@/lib/sources/secret-box";
import { secretFormatProblem } from "@/lib/sources/secret-format";
import { setupTestDb } from "../db";
import { TEST_SECRETS } from "../sign";

const { db } = setupTestDb();
const admin: Actor = { id: "u-admin", email: "admin@example.com", role: "admin" };
const box = createSecretBox(randomBytes(32));
const BROKEN = "whsec_###notbase64";

function console_() {
  const sources = createSourceDirectory({ declared: [], getDb: async () => db, box });
  const ctx: ManageContext = { db, actor: admin, sources, box };
  return ctx;
}

const caught = async (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as Error);
const b64 = (n: number) => randomBytes(n).toString("base64");
const edPublic = () => {
  const jwk = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
  return Buffer.from(jwk.x ?? "", "base64url");
};

describe("pasted secrets are checked against their kind's format", () => {
  it("[sources] a standard source with whsec_###notbase64 is refused when added, naming the format; nothing is stored", async () => {
    const err = await caught(
      createSource(console_(), { slug: "clerk", provider: "standard", name: "Clerk", secret: BROKEN }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ field: "secret" });
    expect(err?.message).toMatch(/whsec_<base64/);
    expect(err?.message).not.toContain("###");
    const [row] = rowsOf<{ n: number }>(
      await db.execute(
        sql`select (select count(*) from webhook_source)::int + (select count(*) from webhook_source_secret)::int as n`,
      ),
    );
    expect(row?.n).toBe(0);
  });

  it("[sources] a rotation to a malformed secret is refused and the old secret stays the only one", async () => {
    const ctx = console_();
    await createSource(ctx, { slug: "clerk", provider: "standard", name: "Clerk", secret: TEST_SECRETS.standard });
    const err = await caught(addSourceSecret(ctx, { slug: "clerk", secret: BROKEN }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err?.message).toMatch(/Standard Webhooks secret/);
    const [row] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from webhook_source_secret`));
    expect(row?.n).toBe(1);
  });

  it.each<[ProviderKind, string, RegExp]>([
    ["stripe", "sk_live_51HqLyjWDarjtT1zdp7dc", /whsec_/],
    ["stripe", "whsec_abc", /whsec_/],
    ["stripe", 'whsec_abc"def0123456789', /whsec_/],
    ["standard", BROKEN, /whsec_<base64/],
    ["standard", `whsec_${b64(16)}`, /24 bytes/],
    ["standard", `whpk_${b64(31)}`, /whpk_/],
    ["standard", `whsk_${b64(64)}`, /whsk_/],
    ["github", "hunter2", /at least 8/],
    ["github", "tab\there0123", /spaces/],
    ["shopify", "two,secrets00", /commas/],
    ["slack", "ünïcode-secret-0123", /printable ASCII/],
    ["generic", "short", /at least 8/],
  ])("[sources] a %s secret %j is refused with a message naming the expected format", (kind, secret, message) => {
    const problem = secretFormatProblem(kind, secret);
    expect(problem).toMatch(message);
    if (secret.length > 6) expect(problem).not.toContain(secret);
  });

  it.each<[ProviderKind, string]>([
    ["stripe", TEST_SECRETS.stripe],
    ["stripe", "whsec_5f8e0c1d2b3a4f5e6d7c8b9a0f1e2d3c"],
    ["stripe", `whsec_${randomBytes(24).toString("base64url")}`],
    ["standard", TEST_SECRETS.standard],
    ["standard", `whsec_${b64(24)}`],
    ["standard", `whsec_${b64(24).replace(/=+$/, "")}`],
    ["standard", `whpk_${edPublic().toString("base64")}`],
    ["github", TEST_SECRETS.github],
    ["shopify", "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"],
    ["paddle", TEST_SECRETS.paddle],
    ["slack", "8f742231b10e8888abcd99yyyzzz85a5"],
    ["generic", "lemon-squeezy-signing-secret"],
  ])("[sources] a well-formed %s secret is accepted", (kind, secret) => {
    expect(secretFormatProblem(kind, secret)).toBeUndefined();
  });

  it("[sources] a malformed secret in a legacy variable or in SOURCES_FILE stops start-up, naming the variable, never the value", () => {
    const declare =
      (legacy: Record<string, string>, file?: unknown, vars: Record<string, string> = {}) =>
      () =>
        declaredSources(parseEnv({ ...legacy, ...(file ? { SOURCES_FILE: "sources.json" } : {}) }), {
          envVar: (name) => vars[name],
          readFile: () => JSON.stringify(file),
          fingerprint: unkeyedFingerprint,
        });
    const message = (fn: () => unknown) => {
      expect(fn).toThrow(SourcesConfigError);
      try {
        fn();
      } catch (err) {
        return (err as Error).message;
      }
      return "";
    };
    const legacy = message(declare({ STANDARD_WEBHOOK_SECRET: `${TEST_SECRETS.standard},${BROKEN}` }));
    expect(legacy).toMatch(/^STANDARD_WEBHOOK_SECRET, secret 2 of 2: a Standard Webhooks secret looks like whsec_/);
    expect(legacy).not.toContain("###");
    expect(message(declare({ STRIPE_WEBHOOK_SECRET: "sk_live_0123456789abcdef" }))).toMatch(
      /^STRIPE_WEBHOOK_SECRET, secret 1 of 1: a Stripe signing secret/,
    );
    const entry = { slug: "stripe-eu", provider: "stripe", name: "EU", secretsEnv: "STRIPE_EU_WEBHOOK_SECRET" };
    const file = message(declare({}, [entry], { STRIPE_EU_WEBHOOK_SECRET: "we_1Mr5jULkdIwHu7ix1ibLTM0x" }));
    expect(file).toMatch(/entry 1 \("stripe-eu"\): STRIPE_EU_WEBHOOK_SECRET, secret 1 of 1: a Stripe signing secret/);
    expect(file).not.toContain("we_1Mr5jULkdIwHu7ix1ibLTM0x");
    // The tests' own secrets, and the e2e ones, are well-formed.
    expect(
      declare({ STRIPE_WEBHOOK_SECRET: "whsec_e2e_stripe_old,whsec_e2e_stripe", SLACK_SIGNING_SECRET: "e2e-slack" }),
    ).not.toThrow();
  });

  it("[sources] a standard secret stored before the check (not base64) neither signs a test event nor verifies what it would have signed", () => {
    const body = JSON.stringify(standardEvent());
    const now = Math.floor(Date.now() / 1000);
    expect(standard.sign?.({ rawBody: body, secret: BROKEN, now, eventId: "msg_1", eventType: "t" })).toBeUndefined();
    // What the lenient decoding signed with: the bytes Buffer made of the junk.
    const lenient = createHmac("sha256", Buffer.from(BROKEN.slice(6), "base64")).update(`msg_1.${now}.${body}`);
    const verdict = standard.verify({
      rawBody: Buffer.from(body),
      headers: new Headers({
        "webhook-id": "msg_1",
        "webhook-timestamp": String(now),
        "webhook-signature": `v1,${lenient.digest("base64")}`,
      }),
      secrets: [BROKEN],
      toleranceSeconds: 300,
      now,
    });
    expect(verdict).toMatchObject({ ok: false, refusal: "bad_signature" });
  });
});
