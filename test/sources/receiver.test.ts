import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { createRefusalRecorder } from "@/lib/sources/refusals";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { counts, depsFor, post } from "../receiver/harness";
import { startReceiverServer } from "../receiver/http-server";
import { signStripe, TEST_SECRETS } from "../sign";
import { testSource, testSources } from "../sources";

const { db } = setupTestDb();
const EU = "whsec_eu_account_secret_000000000000";
const US = "whsec_us_account_secret_111111111111";
const body = (eventId: string) => JSON.stringify(stripeSubscriptionEvent({ eventId }));

/** Two Stripe accounts, each its own endpoint with its own secret, beside the legacy /stripe. */
function twoStripes(over: { eu?: Parameters<typeof testSource>[3] } = {}) {
  const refusals = createRefusalRecorder({ getDb: async () => db, flushMs: 10_000 });
  const deps = depsFor(db, {
    sources: testSources({}, [
      testSource("stripe-eu", "stripe", [EU], over.eu),
      testSource("stripe-us", "stripe", [US]),
    ]),
  });
  return { deps: { ...deps, refusals }, refusals };
}

const refusalRows = async () =>
  rowsOf<Record<string, unknown>>(
    await db.execute(
      sql`select source, reason, detail, status, size, signature_header, count from webhook_refusal order by id`,
    ),
  );

describe("sources: many endpoints per provider", () => {
  it("[sources] two Stripe sources with different secrets each accept only their own signatures", async () => {
    const { deps } = twoStripes();
    expect((await post(deps, "stripe-eu", signStripe(body("evt_eu_1"), EU))).status).toBe(200);
    expect((await post(deps, "stripe-us", signStripe(body("evt_us_1"), US))).status).toBe(200);
    expect(await post(deps, "stripe-eu", signStripe(body("evt_x_1"), US))).toMatchObject({
      status: 401,
      body: { error: "signature mismatch" },
    });
    expect((await post(deps, "stripe-us", signStripe(body("evt_x_2"), EU))).status).toBe(401);
    expect((await post(deps, "stripe", signStripe(body("evt_x_3"), EU))).status).toBe(401);
    expect((await post(deps, "stripe", signStripe(body("evt_legacy"), TEST_SECRETS.stripe))).status).toBe(200);
    const rows = rowsOf<{ source: string; event_id: string }>(
      await db.execute(sql`select source, event_id from webhook_event order by source`),
    );
    expect(rows).toEqual([
      { source: "stripe", event_id: "evt_legacy" },
      { source: "stripe-eu", event_id: "evt_eu_1" },
      { source: "stripe-us", event_id: "evt_us_1" },
    ]);
  });

  it("[sources] the same event id on two sources is two events, and a repeat on one is its duplicate", async () => {
    const { deps } = twoStripes();
    expect((await post(deps, "stripe-eu", signStripe(body("evt_same"), EU))).body).toEqual({
      received: true,
      duplicate: false,
    });
    expect((await post(deps, "stripe-us", signStripe(body("evt_same"), US))).body).toEqual({
      received: true,
      duplicate: false,
    });
    expect((await post(deps, "stripe-us", signStripe(body("evt_same"), US))).body).toEqual({
      received: true,
      duplicate: true,
    });
    expect(await counts(db)).toEqual({ events: 2, deliveries: 3 });
  });

  it("[sources] a secret with an expiry verifies until then and is refused after, while the new one verifies", async () => {
    const retireAt = new Date("2026-12-01T12:00:00Z");
    const OLD = "whsec_old_secret_until_noon_00000000";
    const NEW = "whsec_new_secret_from_now_on_000000";
    const at = (iso: string) => {
      const deps = depsFor(db, {
        sources: testSources({}, [testSource("stripe-eu", "stripe", [{ value: OLD, expiresAt: retireAt }, NEW])]),
      });
      return { ...deps, now: () => Math.floor(Date.parse(iso) / 1000) };
    };
    const sign = (secret: string, iso: string, id: string) =>
      signStripe(body(id), secret, Math.floor(Date.parse(iso) / 1000));
    expect(
      (await post(at("2026-12-01T11:59:59Z"), "stripe-eu", sign(OLD, "2026-12-01T11:59:59Z", "evt_a"))).status,
    ).toBe(200);
    expect(
      (await post(at("2026-12-01T12:00:00Z"), "stripe-eu", sign(OLD, "2026-12-01T12:00:00Z", "evt_b"))).status,
    ).toBe(401);
    expect(
      (await post(at("2026-12-01T12:00:01Z"), "stripe-eu", sign(NEW, "2026-12-01T12:00:01Z", "evt_c"))).status,
    ).toBe(200);
    expect(await counts(db)).toEqual({ events: 2, deliveries: 2 });
  });

  it("[sources] the claim records which secret verified the delivery at arrival (its fingerprint), during a rotation too", async () => {
    const OLD = "whsec_rotating_old_0000000000000000";
    const NEW = "whsec_rotating_new_1111111111111111";
    const source = testSource("stripe-rot", "stripe", [OLD, NEW]);
    const deps = depsFor(db, { sources: testSources({}, [source]) });
    expect((await post(deps, "stripe-rot", signStripe(body("evt_old_key"), OLD))).status).toBe(200);
    expect((await post(deps, "stripe-rot", signStripe(body("evt_new_key"), NEW))).status).toBe(200);
    const rows = rowsOf<{ event_id: string; verified_with: string }>(
      await db.execute(sql`select event_id, verified_with from webhook_event order by event_id`),
    );
    const [oldFp, newFp] = source.secrets.map((s) => s.fingerprint);
    expect(rows).toEqual([
      { event_id: "evt_new_key", verified_with: newFp },
      { event_id: "evt_old_key", verified_with: oldFp },
    ]);
    expect(JSON.stringify(rows)).not.toContain("whsec_");
  });

  it("[sources] a paused source answers 503 with Retry-After, writes nothing, and counts the refusal", async () => {
    const { deps, refusals } = twoStripes({ eu: { state: "paused" } });
    const res = await post(deps, "stripe-eu", signStripe(body("evt_paused"), EU));
    expect(res).toMatchObject({ status: 503, body: { error: 'source "stripe-eu" is paused, retry later' } });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    await refusals.flush();
    expect(await refusalRows()).toMatchObject([{ source: "stripe-eu", reason: "paused", status: 503, count: 1 }]);
  });

  it("[sources] a disabled source answers 404 like an unknown one and writes nothing", async () => {
    const { deps } = twoStripes({ eu: { state: "disabled" } });
    expect(await post(deps, "stripe-eu", signStripe(body("evt_off"), EU))).toMatchObject({
      status: 404,
      body: { error: 'no source "stripe-eu"' },
    });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[sources] refusals are counted with their reason and metadata, never the body", async () => {
    const { deps, refusals } = twoStripes();
    const secretText = "cus_SecretCustomer42";
    const signed = signStripe(
      JSON.stringify({ ...stripeSubscriptionEvent({ eventId: "evt_r" }), note: secretText }),
      US,
    );
    await post(deps, "stripe-eu", signed); // wrong secret
    await post(deps, "stripe-eu", signed); // and again
    await post(deps, "stripe-eu", signStripe(body("evt_old"), EU, Math.floor(Date.now() / 1000) - 3600));
    await post(deps, "stripe-eu", signStripe("not json at all", EU));
    await post(deps, "stripe-eu", { body: body("evt_nosig"), headers: { "content-type": "application/json" } });
    await refusals.flush();
    const rows = await refusalRows();
    expect(rows.map((r) => [r.reason, r.status, r.signature_header])).toEqual([
      ["bad_signature", 401, "stripe-signature"],
      ["bad_signature", 401, "stripe-signature"],
      ["stale_timestamp", 401, "stripe-signature"],
      ["not_json", 400, "stripe-signature"],
      ["bad_signature", 401, null],
    ]);
    expect(rows[0]).toMatchObject({ detail: "signature mismatch", size: Buffer.byteLength(signed.body) });
    // Metadata only: no column holds the body or anything from it.
    const all = JSON.stringify(rowsOf(await db.execute(sql`select * from webhook_refusal`)));
    expect(all).not.toContain(secretText);
    expect(all).not.toContain("evt_r");
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[sources] over node:http a refusal records the peer's address", async () => {
    const { deps, refusals } = twoStripes();
    const server = await startReceiverServer(deps);
    try {
      const bad = signStripe(body("evt_peer"), "whsec_not_the_secret_0000000000000");
      const res = await fetch(`${server.url}/api/webhooks/stripe-eu`, {
        method: "POST",
        headers: bad.headers,
        body: bad.body,
      });
      expect(res.status).toBe(401);
    } finally {
      await server.close();
    }
    await refusals.flush();
    expect(await refusalRows()).toMatchObject([{ source: "stripe-eu", reason: "bad_signature" }]);
    const [row] = rowsOf<{ remote_addr: string }>(await db.execute(sql`select remote_addr from webhook_refusal`));
    expect(row?.remote_addr).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it("[sources] a flood of alike refusals is folded into a few rows that still count every one", async () => {
    const { deps, refusals } = twoStripes();
    const bad = signStripe(body("evt_flood"), "whsec_guess_000000000000000000000");
    for (let i = 0; i < 40; i++) await post(deps, "stripe-us", bad);
    await refusals.flush();
    const [row] = rowsOf<{ rows: number; total: number }>(
      await db.execute(sql`select count(*)::int as rows, sum(count)::int as total from webhook_refusal`),
    );
    expect(row).toEqual({ rows: 5, total: 40 });
  });

  it("[sources] an unknown slug is not recorded as a refusal (it is nobody's source)", async () => {
    const { deps, refusals } = twoStripes();
    expect((await post(deps, "stripe-xx", signStripe(body("evt_nobody"), EU))).status).toBe(404);
    await refusals.flush();
    expect(await refusalRows()).toEqual([]);
  });
});
