import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { bundleQueries } from "@/lib/console/dispute-bundle";
import { entityCountWords, subjectEntityVersionWords } from "@/lib/console/entity-words";
import { getSubjectView, subjectEventsQuery, subjectProbeQuery, subjectTransitionsQuery } from "@/lib/console/subject";
import { shopifyOrder } from "@/test/fixtures/shopify";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { depsFor, post } from "../receiver/harness";
import { setupTestDb } from "../db";
import { signShopify, signStripe, TEST_SECRETS } from "../sign";
import { testSources } from "../sources";
import { drain, query, testSettings } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
const directory = testSources();
const sourceOf = (slug: string) => directory.find(slug);

const cus = "cus_SubjView00001";
const sub = "sub_1SubjView0001";
const email = "jenny.subject@example.com";
const SHOP_WEBHOOK = "6f0c1a7e-5b1d-4c1e-9d6a-0c9e2b7f1a01";
/** Shopify events are keyed by the event id and the topic. */
const SHOP_EVENT = `${SHOP_WEBHOOK}:orders/updated`;

async function stripe(event: object, times = 1) {
  for (let i = 0; i < times; i++)
    expect((await post(depsFor(db), "stripe", signStripe(JSON.stringify(event), TEST_SECRETS.stripe))).status).toBe(
      200,
    );
}

async function shopify(order: object, webhookId: string) {
  const d = signShopify(JSON.stringify(order), TEST_SECRETS.shopify, { webhookId, topic: "orders/updated" });
  expect((await post(depsFor(db), "shopify", d)).status).toBe(200);
}

/** One customer across Stripe (subscription, a stale update, invoice.paid, an unhandled type, a dead invoice) and Shopify. */
async function seedCustomer() {
  await stripe(
    stripeSubscriptionEvent({
      eventId: "evt_sv_new",
      created: 2_000,
      status: "active",
      subscriptionId: sub,
      customerId: cus,
    }),
  );
  await drain(db, testSettings());
  await stripe(
    stripeSubscriptionEvent({
      eventId: "evt_sv_old",
      created: 1_000,
      status: "past_due",
      subscriptionId: sub,
      customerId: cus,
    }),
  );
  await stripe(
    stripeInvoicePaidEvent({
      eventId: "evt_sv_inv",
      created: 3_000,
      customerId: cus,
      customerEmail: email,
      amount: 4200,
    }),
    3,
  );
  await stripe({
    id: "evt_sv_cust",
    object: "event",
    created: 4_000,
    type: "customer.updated",
    data: { object: { id: cus, object: "customer", email } },
  });
  const broken = stripeInvoicePaidEvent({ eventId: "evt_sv_bad", created: 5_000, customerId: cus });
  delete (broken.data.object as Partial<typeof broken.data.object>).currency;
  await stripe(broken);
  const order = {
    ...shopifyOrder({
      id: 5745183776999,
      email: "Jenny.Subject@Example.com",
      totalPrice: "49.50",
      updatedAt: "2024-04-12T06:18:49-04:00",
    }),
    note_attributes: [{ name: "stripe_customer", value: cus }],
  };
  await shopify(order, SHOP_WEBHOOK);
  await drain(db, testSettings());
  // An event of someone else: never in the view.
  await stripe(
    stripeInvoicePaidEvent({
      eventId: "evt_sv_other",
      customerId: "cus_SomeoneElse01",
      customerEmail: "other@example.com",
    }),
  );
  await drain(db, testSettings());
}

describe("the customer view", () => {
  it("[subjects] lists every event of one customer across Stripe and Shopify, newest first, with outcomes, duplicates, amounts and entities", async () => {
    await seedCustomer();
    const v = await getSubjectView(db, support, { subject: cus }, sourceOf);
    // Provider time orders it: the Shopify order (2024) first, then the Stripe events by `created`.
    expect(v.events.map((e) => [e.source, e.eventId])).toEqual([
      ["shopify", SHOP_EVENT],
      ["stripe", "evt_sv_bad"],
      ["stripe", "evt_sv_cust"],
      ["stripe", "evt_sv_inv"],
      ["stripe", "evt_sv_new"],
      ["stripe", "evt_sv_old"],
    ]);
    expect([v.found, v.capped]).toEqual([6, false]);
    const by = (id: string) => v.events.find((e) => e.eventId === id)!;
    expect(by("evt_sv_new").providerTime).toEqual({ at: "1970-01-01T00:33:20.000Z", field: "created" });
    expect(by(SHOP_EVENT).providerTime).toEqual({
      at: "2024-04-12T10:18:49.000Z",
      field: "updated_at",
    });
    expect(by("evt_sv_inv").amount).toEqual({
      value: "42.00",
      currency: "USD",
      text: "42.00 USD",
      field: "data.object.amount_paid",
    });
    expect(by(SHOP_EVENT).amount).toEqual({
      value: "49.50",
      currency: "USD",
      text: "49.50 USD",
      field: "total_price",
    });
    expect(by("evt_sv_inv").duplicates).toBe(2);
    expect(by("evt_sv_inv").deliveries).toBe(3);
    // Outcomes: applied, stale (with the timeline's note), ignored (no handler), dead with its error.
    expect(by("evt_sv_new").transitions.map((t) => [t.entityType, t.entityId, t.outcome])).toEqual([
      ["subscription", sub, "applied"],
    ]);
    expect(by("evt_sv_old").lastAttempt?.outcome).toBe("stale");
    expect(by("evt_sv_old").transitions[0]).toMatchObject({
      outcome: "stale",
      priorVersion: 2000,
      priorEventId: "evt_sv_new",
    });
    expect(by("evt_sv_cust")).toMatchObject({
      status: "settled",
      lastAttempt: { outcome: "ignored" },
      transitions: [],
    });
    expect(by("evt_sv_bad").status).toBe("dead");
    expect(by("evt_sv_bad").lastError).toMatch(/currency/);
    expect(by("evt_sv_inv").transitions.map((t) => [t.entityType, t.entityId, t.outcome])).toEqual([
      ["customer", cus, "applied"],
    ]);
    // The entities those events moved, with the business rows as they stand now.
    const entity = (type: string, id: string) => v.entities.find((x) => x.entityType === type && x.entityId === id);
    expect(entity("subscription", sub)).toMatchObject({
      source: "stripe",
      current: { version: 2000, eventId: "evt_sv_new" },
    });
    expect(entity("subscription", sub)?.state).toEqual([
      expect.objectContaining({ status: "active", customer_id: cus }),
    ]);
    expect(entity("customer", cus)?.state).toEqual([expect.objectContaining({ currency: "usd", invoice_count: 1 })]);
    expect(entity("order", "5745183776999")?.state).toEqual([
      expect.objectContaining({ email: "Jenny.Subject@Example.com", total_price: "49.50 USD" }),
    ]);
    expect(entity("invoice", "in_1MoqxGLgUG5tbmjcJeILGSau")?.untracked).toBe(true);
  });

  it("[subjects] counts the entities its events moved apart from those they only name, and shows money in units", async () => {
    await seedCustomer();
    const v = await getSubjectView(db, support, { subject: cus }, sourceOf);
    const entity = (type: string, id: string) => v.entities.find((x) => x.entityType === type && x.entityId === id)!;
    expect(v.entities.map((x) => [x.entityType, x.moved]).sort()).toEqual([
      ["customer", true],
      ["invoice", false],
      ["order", true],
      ["subscription", true],
    ]);
    expect(entityCountWords(v.entities)).toBe("3 entities moved, 1 named only");
    expect(subjectEntityVersionWords(entity("invoice", "in_1MoqxGLgUG5tbmjcJeILGSau"))).toBe(
      `no version: applied once per event, to customer ${cus}`,
    );
    expect(subjectEntityVersionWords(entity("customer", cus))).toBe("no version: applied once per event");
    expect(subjectEntityVersionWords(entity("subscription", sub))).toBeNull();
    expect(entity("customer", cus).state).toEqual([expect.objectContaining({ amount_paid: "42.00 USD" })]);
    expect(entity("order", "5745183776999").state).toEqual([expect.objectContaining({ total_price: "49.50 USD" })]);
    const paid = v.events.find((e) => e.eventId === "evt_sv_inv")!.transitions[0]!;
    expect(paid.changes).toEqual({ amount_paid: { from: "0.00 USD", to: "42.00 USD" } });
  });

  it("[subjects] an email finds the same customer's Stripe invoice and Shopify order, whatever its case", async () => {
    await seedCustomer();
    const v = await getSubjectView(db, support, { subject: "  JENNY.Subject@example.com " }, sourceOf);
    expect(v.subject).toBe(email);
    expect(v.events.map((e) => e.eventId).sort()).toEqual([SHOP_EVENT, "evt_sv_cust", "evt_sv_inv"].sort());
  });

  it("[subjects] support may read it, an anonymous caller may not, and a subject no row can hold is refused before any query", async () => {
    await seedCustomer();
    await expect(getSubjectView(db, undefined, { subject: cus }, sourceOf)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(getSubjectView(db, support, { subject: "a\u0000b" }, sourceOf)).rejects.toThrow(/NUL/);
    expect((await getSubjectView(db, support, { subject: "cus_NobodyAtAll01" }, sourceOf)).events).toEqual([]);
  });

  it("[subjects] is bounded to the newest 500 events and says how many more there are", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, subject_ids, received_at",
      sql`
      select 'stripe', 'evt_many_' || g, 'customer.updated', '{}', '{}', '{}', 'settled', array['cus_ManyEvents001'],
             now() - g * interval '1 second'
      from generate_series(1, 520) g`,
    );
    const v = await getSubjectView(db, support, { subject: "cus_ManyEvents001" }, sourceOf);
    expect([v.events.length, v.found, v.capped]).toEqual([500, 520, false]);
    expect(v.events[0]?.eventId).toBe("evt_many_1");
    expect(v.events.at(-1)?.eventId).toBe("evt_many_500");
  });
});

describe("the customer view's queries at scale", () => {
  it(
    "[subjects] on a seeded ledger, a customer's probe, the event lookups and the bundle's evidence use the GIN " +
      "and key indexes, never a sequential scan; an id every row shares stops at the probe's cap",
    async () => {
      // 200,000 events (50,000 customers, 4 each), a delivery, an attempt and a timeline row each; then ANALYZE.
      await seedEvents(
        db,
        "source, event_id, event_type, payload, raw_body, headers, status, subject_ids, received_at",
        sql`
      select 'stripe', 'evt_seed_' || g, 'invoice.paid', jsonb_build_object('created', 1700000000 + g), '{}', '{}', 'settled',
             array['cus_Seed' || lpad((g % 50000)::text, 8, '0'), 'price_1SharedByAll0'], now() - g * interval '1 second'
      from generate_series(1, 200000) g`,
      );
      await db.execute(sql`
      insert into webhook_delivery (source, event_id, via, claimed)
      select 'stripe', 'evt_seed_' || g, 'provider', true from generate_series(1, 200000) g`);
      await db.execute(sql`
      insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
      select 'stripe', 'evt_seed_' || g, 1, 'auto', 'w', now(), now(), 'settled' from generate_series(1, 200000) g`);
      await db.execute(sql`
      insert into entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes)
      select 'stripe', 'customer', 'cus_Seed' || lpad((g % 50000)::text, 8, '0'), 'evt_seed_' || g, null, 'applied', '{}'
      from generate_series(1, 200000) g`);
      await db.execute(
        sql`analyze webhook_event_state, webhook_event_body, webhook_delivery, webhook_attempt, entity_transition`,
      );
      const plan = async (q: ReturnType<typeof sql>) =>
        (await query<{ "QUERY PLAN": string }>(db, sql`explain ${q}`)).map((r) => r["QUERY PLAN"]).join("\n");

      const probe = await plan(subjectProbeQuery("cus_Seed00000042"));
      expect(probe).toMatch(/Bitmap Index Scan on webhook_event_subject_ids_idx/);
      expect(probe).not.toMatch(/Seq Scan|webhook_event_received_idx/);
      // An id every row shares (the planner knows it from the column's statistics): whatever it reads, the probe
      // stops after its cap of 10,001 rows instead of sorting or walking the whole table.
      const shared = await plan(subjectProbeQuery("price_1SharedByAll0"));
      expect(shared).not.toMatch(/webhook_event_received_idx/);
      expect(shared).toMatch(/Limit .*rows=10001/);

      const keys = Array.from({ length: 500 }, (_, i) => ({ source: "stripe", eventId: `evt_seed_${i * 400 + 7}` }));
      const events = await plan(subjectEventsQuery(keys));
      expect(events).not.toMatch(/Seq Scan on (webhook_event|webhook_delivery|webhook_attempt)/);
      expect(events).toMatch(/webhook_event_state_source_event_id_pk/);
      expect(events).toMatch(/webhook_delivery_pkey/);
      expect(events).toMatch(/webhook_attempt_pkey/);
      const evidence = bundleQueries(keys);
      expect(await plan(evidence.bodies)).toMatch(/Index Scan using webhook_event_(body|state)_source_event_id_pk/);
      const deliveries = await plan(evidence.deliveries);
      expect(deliveries).toMatch(/webhook_delivery_pkey/);
      expect(deliveries).not.toMatch(/Seq Scan on webhook_delivery/);
      const attempts = await plan(evidence.attempts);
      expect(attempts).toMatch(/webhook_attempt_pkey/);
      expect(attempts).not.toMatch(/Seq Scan on webhook_attempt/);
      const timeline = await plan(subjectTransitionsQuery(keys));
      expect(timeline).toMatch(/entity_transition_event_idx/);
      expect(timeline).not.toMatch(/Seq Scan on entity_transition/);
    },
  );
});
