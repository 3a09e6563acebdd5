import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/roles";
import { getEntityTimeline } from "@/lib/console/entity-timeline";
import { timelineVersionWords } from "@/lib/console/entity-words";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { depsFor, post } from "../receiver/harness";
import { setupTestDb } from "../db";
import { signStripe, TEST_SECRETS } from "../sign";
import { drain, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
const customer = "cus_Timeline0001";

async function deliver(event: object) {
  await post(depsFor(db), "stripe", signStripe(JSON.stringify(event), TEST_SECRETS.stripe));
}

async function threeInvoices() {
  for (const [i, amount] of [1000, 2000, 4000].entries())
    await deliver(
      stripeInvoicePaidEvent({ eventId: `evt_inv${i}`, invoiceId: `in_1Timeline${i}`, customerId: customer, amount }),
    );
  await drain(db, testSettings());
}

describe("the entity timeline", () => {
  it("[console] a customer's invoice events are on its timeline as the events they are, applied, with no version", async () => {
    await threeInvoices();
    const t = await getEntityTimeline(db, support, { source: "stripe", entityType: "customer", entityId: customer });
    expect(t.entries.map((e) => [e.eventId, e.eventType, e.inLedger, e.outcome, e.eventStatus])).toEqual([
      ["evt_inv2", "invoice.paid", true, "applied", "settled"],
      ["evt_inv1", "invoice.paid", true, "applied", "settled"],
      ["evt_inv0", "invoice.paid", true, "applied", "settled"],
    ]);
    expect(t.entries[0]!.changes).toEqual({ amount_paid: { from: "30.00 USD", to: "70.00 USD" } });
    // A delta entity has no version guard, yet it has been applied.
    expect(t.current).toBeUndefined();
    expect(t.lastApplied).toMatchObject({ eventId: "evt_inv2", versioned: false });
    expect(t.states).toHaveLength(1);
    expect(t.state).toMatchObject({ customer_id: customer, currency: "usd", invoice_count: 3 });
    expect(t.state!.amount_paid).toBe("70.00 USD");
  });

  it("[console] a customer's total moves in dollars, with its currency, not in cents labelled as dollars", async () => {
    await deliver(
      stripeInvoicePaidEvent({ eventId: "evt_jpy", invoiceId: "in_1TimelineJpy", customerId: customer, amount: 500 }),
    );
    const jpy = stripeInvoicePaidEvent({
      eventId: "evt_jpy2",
      invoiceId: "in_1TimelineJpy2",
      customerId: customer,
      amount: 700,
    });
    (jpy.data.object as Record<string, unknown>).currency = "jpy";
    await deliver(jpy);
    await drain(db, testSettings());
    const t = await getEntityTimeline(db, support, { source: "stripe", entityType: "customer", entityId: customer });
    expect(t.entries.find((e) => e.eventId === "evt_jpy")!.changes).toEqual({
      amount_paid: { from: "0.00 USD", to: "5.00 USD" },
    });
    expect(t.entries.find((e) => e.eventId === "evt_jpy2")!.changes).toEqual({
      amount_paid: { from: "0 JPY", to: "700 JPY" },
    });
    expect(t.states.map((s) => s.amount_paid).sort()).toEqual(["5.00 USD", "700 JPY"]);
    expect(timelineVersionWords(t)).toBe("no version: applied once per event");
  });

  it("[console] an invoice's own page says the event settled by moving its customer", async () => {
    await threeInvoices();
    const t = await getEntityTimeline(db, support, {
      source: "stripe",
      entityType: "invoice",
      entityId: "in_1Timeline1",
    });
    expect(t.entries).toHaveLength(1);
    expect(t.entries[0]).toMatchObject({
      eventId: "evt_inv1",
      eventType: "invoice.paid",
      outcome: "elsewhere",
      moved: [{ entityType: "customer", entityId: customer }],
    });
    expect(t.state).toBeUndefined();
  });

  it("[console] an invoice whose event was applied to its customer says it has no version, not 'none applied yet'", async () => {
    await threeInvoices();
    const invoice = await getEntityTimeline(db, support, {
      source: "stripe",
      entityType: "invoice",
      entityId: "in_1Timeline1",
    });
    expect(timelineVersionWords(invoice)).toBe(`no version: applied once per event, to customer ${customer}`);
    await deliver(stripeSubscriptionEvent({ eventId: "evt_sub_wait", subscriptionId: "sub_1TimelineWords" }));
    const waiting = await getEntityTimeline(db, support, {
      source: "stripe",
      entityType: "subscription",
      entityId: "sub_1TimelineWords",
    });
    expect(timelineVersionWords(waiting)).toBe("none applied yet");
    await drain(db, testSettings());
    const applied = await getEntityTimeline(db, support, {
      source: "stripe",
      entityType: "subscription",
      entityId: "sub_1TimelineWords",
    });
    expect(timelineVersionWords(applied)).toBeNull();
  });

  it("[console] a pruned event's timeline row says it is no longer in the ledger; a waiting one is pending", async () => {
    await threeInvoices();
    await db.execute(sql`delete from webhook_event_state where event_id = 'evt_inv0'`);
    await db.execute(sql`delete from webhook_event_body where event_id = 'evt_inv0'`);
    const t = await getEntityTimeline(db, support, { source: "stripe", entityType: "customer", entityId: customer });
    expect(t.entries.find((e) => e.eventId === "evt_inv0")).toMatchObject({ inLedger: false, eventType: null });
    expect(t.entries.filter((e) => e.inLedger)).toHaveLength(2);
    await deliver(stripeSubscriptionEvent({ eventId: "evt_sub_wait", subscriptionId: "sub_1TimelineWait" }));
    const waiting = await getEntityTimeline(db, support, {
      source: "stripe",
      entityType: "subscription",
      entityId: "sub_1TimelineWait",
    });
    expect(waiting.entries.map((e) => [e.eventId, e.outcome, e.eventStatus])).toEqual([
      ["evt_sub_wait", "pending", "claimed"],
    ]);
  });

  it("[console] a subscription's prior version is on the row that replaced it", async () => {
    const sub = "sub_1TimelinePrior";
    await deliver(stripeSubscriptionEvent({ eventId: "evt_p1", created: 1000, subscriptionId: sub }));
    await drain(db, testSettings());
    await deliver(
      stripeSubscriptionEvent({ eventId: "evt_p2", created: 2000, subscriptionId: sub, status: "past_due" }),
    );
    await drain(db, testSettings());
    const t = await getEntityTimeline(db, support, { source: "stripe", entityType: "subscription", entityId: sub });
    expect(t.entries.map((e) => [e.eventId, e.version, e.priorVersion, e.priorEventId])).toEqual([
      ["evt_p2", 2000, 1000, "evt_p1"],
      ["evt_p1", 1000, null, null],
    ]);
    expect(t.current).toMatchObject({ version: 2000, eventId: "evt_p2" });
    expect(t.lastApplied).toMatchObject({ eventId: "evt_p2", versioned: true });
  });
});
