import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { buildDisputeBundle, bundleFileName, bundleJson, signatureScheme } from "@/lib/console/dispute-bundle";
import { shopifyOrder } from "@/test/fixtures/shopify";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { depsFor, post } from "../receiver/harness";
import { setupTestDb } from "../db";
import { paddleSignature, signShopify, signStripe, TEST_SECRETS } from "../sign";
import { unkeyedFingerprint } from "@/lib/sources/secret-box";
import { testSources } from "../sources";
import { drain, query, testSettings } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
const directory = testSources();
const opts = { sourceOf: (slug: string) => directory.find(slug), format: "json" as const };
const cus = "cus_Bundle0000001";
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

// Provider key order, a non-ASCII name and an escaped slash: a re-serialised body would differ from these bytes.
const invoiceBody = (() => {
  const event = stripeInvoicePaidEvent({ eventId: "evt_b_inv", customerId: cus, customerEmail: "zoë@example.com" });
  (event.data.object as Record<string, unknown>).customer_name = "Zoë Ågren — \u00e9t\u00e9";
  return JSON.stringify(event, null, 1).replace('"paid": true', '"paid":true,  "note": "a\\/b"');
})();

async function seed() {
  const stripe = (body: string, t?: number) => post(depsFor(db), "stripe", signStripe(body, TEST_SECRETS.stripe, t));
  const signedAt = Math.floor(Date.now() / 1000) - 60;
  expect((await stripe(invoiceBody, signedAt)).status).toBe(200);
  expect((await stripe(invoiceBody)).status).toBe(200); // a duplicate
  const subscription = JSON.stringify(
    stripeSubscriptionEvent({ eventId: "evt_b_sub", customerId: cus, subscriptionId: "sub_1Bundle000001" }),
  );
  expect((await stripe(subscription)).status).toBe(200);
  const order = JSON.stringify({
    ...shopifyOrder({ id: 5745183770001 }),
    note_attributes: [{ name: "stripe", value: cus }],
  });
  const d = signShopify(order, TEST_SECRETS.shopify, { webhookId: "0b6f5e0a-1111-4c1e-9d6a-0c9e2b7f1a02" });
  expect((await post(depsFor(db), "shopify", d)).status).toBe(200);
  await drain(db, testSettings());
  return { signedAt, subscription, order };
}

const INTERNAL = [
  "lease_token",
  "leaseToken",
  "leased_by",
  "leasedBy",
  "leased_at",
  "leasedAt",
  "lease_expires_at",
  "leaseExpiresAt",
  "next_actor",
  "nextActor",
  "next_trigger",
  "nextTrigger",
  "attempts_base",
  "attemptsBase",
  "next_attempt_at",
  "nextAttemptAt",
  "body_is_key",
  "bodyIsKey",
  "subject_ids",
  "subjectIds",
  "actor",
];

function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  return out;
}

describe("the dispute bundle", () => {
  it(
    "[subjects] holds each event's raw body byte for byte with its SHA-256 stored and recomputed, " +
      "signature scheme, signed timestamp, deliveries, attempts and timeline",
    async () => {
      const { signedAt, subscription, order } = await seed();
      const doc = await buildDisputeBundle(db, support, { subject: cus }, opts);
      // Through the download's own serialisation, as the person receives it.
      const file = JSON.parse(bundleJson(doc)) as typeof doc;
      expect(file.complete).toBe(true);
      expect(file.events.map((e) => e.eventId).sort()).toEqual(
        ["0b6f5e0a-1111-4c1e-9d6a-0c9e2b7f1a02:orders/updated", "evt_b_inv", "evt_b_sub"].sort(),
      );
      const stored = await query<{ event_id: string; raw_body: string }>(
        db,
        sql`select event_id, raw_body from webhook_event`,
      );
      for (const e of file.events) {
        expect(e.rawBody).toBe(stored.find((s) => s.event_id === e.eventId)!.raw_body);
        expect(e.bodySha256).toEqual({ stored: sha256(e.rawBody), recomputed: sha256(e.rawBody), matches: true });
        expect(e.verifiedAtArrival).toBe(unkeyedFingerprint(TEST_SECRETS[e.source as "stripe" | "shopify"]));
        expect(e.signatureCheckNow).toEqual({ state: "verifies" });
      }
      const inv = file.events.find((e) => e.eventId === "evt_b_inv")!;
      expect(inv.rawBody).toBe(invoiceBody);
      expect(Buffer.from(inv.rawBody, "utf8").equals(Buffer.from(invoiceBody, "utf8"))).toBe(true);
      expect(inv.signature).toEqual({
        kind: "stripe",
        description: expect.stringContaining("HMAC-SHA256 of `{t}.{body}`") as unknown,
        signedTimestamp: { unix: signedAt, at: new Date(signedAt * 1000).toISOString(), header: "stripe-signature" },
      });
      expect(inv.headers["stripe-signature"]).toMatch(new RegExp(`^t=${signedAt},v1=`));
      expect(inv.deliveryCount).toBe(2);
      expect(inv.deliveries.map((x) => x.duplicate)).toEqual([false, true]);
      expect(inv.attempts.map((a) => [a.number, a.trigger, a.outcome])).toEqual([[1, "auto", "settled"]]);
      expect(inv.timeline.map((t) => [t.entityType, t.entityId, t.outcome])).toEqual([["customer", cus, "applied"]]);
      expect(inv.amount).toEqual({
        value: "20.00",
        currency: "USD",
        text: "20.00 USD",
        field: "data.object.amount_paid",
      });
      // Money in the currency's units with its code, on the timeline and in the state now: never cents as dollars.
      expect(inv.timeline[0]!.changes).toEqual({ amount_paid: { from: "0.00 USD", to: "20.00 USD" } });
      const total = file.entities.find((x) => x.entityType === "customer")!;
      expect(total.state).toEqual([expect.objectContaining({ amount_paid: "20.00 USD", currency: "usd" })]);
      expect(JSON.stringify(file.entities)).not.toMatch(/amount_paid_usd/);
      expect(file.events.find((e) => e.eventId === "evt_b_sub")!.rawBody).toBe(subscription);
      const shop = file.events.find((e) => e.source === "shopify")!;
      expect(shop.rawBody).toBe(order);
      expect(shop.signature).toMatchObject({ kind: "shopify", signedTimestamp: null });
      expect(file.entities.map((x) => x.entityType).sort()).toEqual(["customer", "invoice", "order", "subscription"]);
    },
  );

  it("[subjects] opens with a first page in words: who, what was charged, when, delivered and applied how many times", async () => {
    await seed();
    const doc = await buildDisputeBundle(db, support, { subject: cus }, opts);
    const { summary } = JSON.parse(bundleJson(doc)) as typeof doc;
    // First in the file, before the evidence.
    expect(Object.keys(JSON.parse(bundleJson(doc)) as object).indexOf("summary")).toBeLessThan(
      Object.keys(JSON.parse(bundleJson(doc)) as object).indexOf("events"),
    );
    expect(summary.who).toEqual({
      subject: cus,
      names: ["Zoë Ågren — été"],
      emails: ["jon.snow@example.com", "zoë@example.com"],
    });
    const inv = summary.events.find((e) => e.eventId === "evt_b_inv")!;
    expect(inv).toEqual({
      source: "stripe",
      eventId: "evt_b_inv",
      eventType: "invoice.paid",
      what: "payment of 20.00 USD",
      when: "2024-04-12T10:18:50.000Z",
      whenSource: "provider",
      deliveries: 2,
      applied: 1,
      sentence: "one payment of 20.00 USD, delivered twice, applied once",
    });
    expect(summary.events.find((e) => e.source === "shopify")!.sentence).toBe(
      "one order of 199.00 USD, delivered once, applied once",
    );
    expect(summary.events.find((e) => e.eventId === "evt_b_sub")!.what).toBe(
      "change to subscription sub_1Bundle000001 (plan: none → price_1MoS37LgUG5tbmjcCA3GTNX8, status: none → active, " +
        "customerId: none → cus_Bundle0000001)",
    );
    expect(summary.period).toEqual({ first: "2024-04-12T10:18:49.000Z", last: "2024-04-12T10:18:50.000Z" });
    expect(summary.integrity).toBe("Each raw body matches the SHA-256 recorded when it arrived (three checked).");
    expect(summary.conclusion).toMatch(
      /^For cus_Bundle0000001: one payment of 20\.00 USD, delivered twice, applied once; one order of 199\.00 USD, /,
    );
    expect(summary.conclusion).toMatch(/\. No event was applied more than once\.$/);
  });

  it("[subjects] the first page says when an event was applied twice, was not applied and why, or was altered", async () => {
    await seed();
    // A second settled attempt, as a shadow-mode reprocess records it; a stale event; an altered body.
    await db.execute(sql`
      insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
      values ('stripe', 'evt_b_inv', 2, 'auto', 'w', now(), now(), 'settled')`);
    await db.execute(sql`update webhook_event_state set outcome = 'stale' where event_id = 'evt_b_sub'`);
    await db.execute(sql`update webhook_attempt set outcome = 'stale' where event_id = 'evt_b_sub'`);
    await db.execute(sql`update webhook_event_body set raw_body = raw_body || ' ' where source = 'shopify'`);
    const { summary } = await buildDisputeBundle(db, support, { subject: cus }, opts);
    expect(summary.events.find((e) => e.eventId === "evt_b_inv")!.sentence).toBe(
      "one payment of 20.00 USD, delivered twice, applied twice",
    );
    expect(summary.events.find((e) => e.eventId === "evt_b_sub")!.sentence).toMatch(
      /, delivered once, not applied: older than the state already applied$/,
    );
    expect(summary.conclusion).toMatch(/ stripe\/evt_b_inv was applied more than once\.$/);
    expect(summary.integrity).toBe(
      "The raw body of shopify/0b6f5e0a-1111-4c1e-9d6a-0c9e2b7f1a02:orders/updated does NOT match the SHA-256 recorded when it arrived.",
    );
  });

  it("[subjects] a row from before arrival proofs were kept says so: no verifying secret, no stored hash to compare", async () => {
    await seed();
    const body = JSON.stringify({
      id: "evt_b_legacy",
      object: "event",
      type: "customer.updated",
      data: { object: { id: cus } },
    });
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, subject_ids",
      sql`
      values ('stripe', 'evt_b_legacy', 'customer.updated', ${body}::jsonb, ${body}, '{}', 'settled', array[${cus}])`,
    );
    const legacy = (await buildDisputeBundle(db, support, { subject: cus }, opts)).events.find(
      (e) => e.eventId === "evt_b_legacy",
    )!;
    expect(legacy).toMatchObject({
      verifiedAtArrival: null,
      bodySha256: { stored: null, recomputed: sha256(body), matches: null },
      deliveryCount: 0,
      deliveries: [],
      attempts: [],
      signature: { kind: "stripe", signedTimestamp: null },
    });
  });

  it("[subjects] leaves every internal field out: leases, next trigger and actor, retry budget, the worker that ran an attempt", async () => {
    await seed();
    const text = bundleJson(await buildDisputeBundle(db, support, { subject: cus }, opts));
    const keys = keysOf(JSON.parse(text));
    for (const field of INTERNAL) expect(keys.has(field), field).toBe(false);
    expect(text).not.toContain(testSettings().workerId);
  });

  it("[subjects] a body altered after arrival shows as a mismatch, and no longer verifies", async () => {
    await seed();
    await db.execute(
      sql`update webhook_event_body set raw_body = replace(raw_body, '2000', '9000') where event_id = 'evt_b_inv'`,
    );
    const doc = await buildDisputeBundle(db, support, { subject: cus }, opts);
    const inv = doc.events.find((e) => e.eventId === "evt_b_inv")!;
    expect(inv.bodySha256.matches).toBe(false);
    expect(inv.bodySha256.recomputed).toBe(sha256(inv.rawBody));
    expect(inv.signatureCheckNow.state).toBe("fails");
  });

  it("[subjects] the download is audited, naming the subject by its SHA-256 and the events disclosed", async () => {
    await seed();
    await buildDisputeBundle(db, support, { subject: cus }, opts);
    await buildDisputeBundle(db, support, { subject: cus }, { ...opts, format: "print" });
    const rows = await query<{
      action: string;
      actor_email: string;
      target: string;
      result: string;
      detail: Record<string, unknown>;
    }>(db, sql`select action, actor_email, target, result, detail from audit_log order by id`);
    expect(rows.map((r) => [r.action, r.actor_email, r.target, r.result, r.detail.format])).toEqual([
      ["subjects.bundle", "support@example.com", `subject:sha256:${sha256(cus)}`, "ok", "json"],
      ["subjects.bundle", "support@example.com", `subject:sha256:${sha256(cus)}`, "ok", "print"],
    ]);
    expect((rows[0]!.detail.events as string[]).sort()).toEqual(
      ["shopify/0b6f5e0a-1111-4c1e-9d6a-0c9e2b7f1a02:orders/updated", "stripe/evt_b_inv", "stripe/evt_b_sub"].sort(),
    );
    expect(JSON.stringify(rows)).not.toContain(cus);
  });

  it("[subjects] support may download it; an anonymous caller is refused and nothing is audited", async () => {
    await seed();
    await expect(buildDisputeBundle(db, undefined, { subject: cus }, opts)).rejects.toBeInstanceOf(ForbiddenError);
    expect(await query(db, sql`select 1 from audit_log`)).toEqual([]);
    expect((await buildDisputeBundle(db, support, { subject: cus }, opts)).events).toHaveLength(3);
  });

  it("[subjects] names each provider's scheme and reads the signed timestamp from the stored headers", () => {
    const body = "{}";
    expect(
      signatureScheme("paddle", { "paddle-signature": paddleSignature(body, "k", 1712917129) }).signedTimestamp,
    ).toEqual({
      unix: 1712917129,
      at: "2024-04-12T10:18:49.000Z",
      header: "paddle-signature",
    });
    expect(signatureScheme("slack", { "x-slack-request-timestamp": "1712917129" }).signedTimestamp?.unix).toBe(
      1712917129,
    );
    expect(signatureScheme("standard", { "webhook-timestamp": "1712917129" }).signedTimestamp?.header).toBe(
      "webhook-timestamp",
    );
    expect(signatureScheme("github", {})).toMatchObject({
      signedTimestamp: null,
      description: expect.stringContaining("X-Hub-Signature-256") as unknown,
    });
    const generic = signatureScheme(
      "generic",
      { "x-zm-request-timestamp": "1712917129" },
      {
        signatureHeader: "x-zm-signature",
        algorithm: "sha256",
        encoding: "hex",
        prefix: "v0=",
        signedContent: { template: "v0:{timestamp}:{body}", timestampHeader: "x-zm-request-timestamp" },
        eventId: { path: "event_id" },
      },
    );
    expect(generic.description).toBe(
      "HMAC-SHA256 of `v0:{timestamp}:{body}`, hex in x-zm-signature (v0=…), timestamp in x-zm-request-timestamp",
    );
    expect(generic.signedTimestamp?.unix).toBe(1712917129);
    expect(signatureScheme(undefined, {}).kind).toBeNull();
    expect(bundleFileName("Zoë/../x@example.com", new Date("2026-01-02T00:00:00Z"))).toBe(
      "dispute-bundle-Zo__.._x@example.com-2026-01-02.json",
    );
  });
});
