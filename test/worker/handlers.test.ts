import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { paddleSubscriptionEvent } from "@/test/fixtures/paddle";
import { shopifyOrder } from "@/test/fixtures/shopify";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query } from "./helpers";

const { db } = setupTestDb();

const sub = (eventId: string, created: number, over: Parameters<typeof stripeSubscriptionEvent>[0] = {}) =>
  stripeSubscriptionEvent({
    eventId,
    created,
    subscriptionId: "sub_1HandlerTest01",
    customerId: "cus_HandlerTest01",
    ...over,
  });

const subscriptionRow = async () =>
  (
    await query<{ plan: string; status: string; version: string; updated_by_event: string; customer_id: string }>(
      db,
      sql`select plan, status, version::text, updated_by_event, customer_id from subscription`,
    )
  )[0];

describe("stripe customer.subscription.*", () => {
  it("[handlers] an update whose version is unusable (created past 2^53) is claimed with a note, and its failure says what was wrong at intake", async () => {
    const odd = { ...sub("evt_far", 1000), created: 1e20 };
    expect(await claim(db, "stripe", odd)).toBe(true);
    expect(await query(db, sql`select intake_note, entity_version from webhook_event`)).toEqual([
      {
        intake_note: "version unusable: event.created 100000000000000000000 is not an integer below 2^53",
        entity_version: null,
      },
    ]);
    await drain(db, undefined, { maxRounds: 1 }).catch(() => undefined);
    // No retry can give it a usable version: dead at once, saying so and what intake found.
    const [row] = await query<{ last_error: string; status: string }>(
      db,
      sql`select last_error, status from webhook_event`,
    );
    expect(row).toEqual({
      status: "dead",
      last_error:
        "permanent: payload has no integer event.created (at intake: version unusable: event.created 100000000000000000000 is not an integer below 2^53)",
    });
  });

  it("[handlers] a created event writes the subscription at version event.created with the first item's price as plan", async () => {
    await claim(
      db,
      "stripe",
      sub("evt_a", 1000, { type: "customer.subscription.created", priceId: "price_Basic001", status: "trialing" }),
    );
    const results = await drain(db);
    expect(results.map((r) => r.outcome)).toEqual(["settled"]);
    expect(await subscriptionRow()).toEqual({
      plan: "price_Basic001",
      status: "trialing",
      version: "1000",
      updated_by_event: "evt_a",
      customer_id: "cus_HandlerTest01",
    });
    const [t] = await query<{ outcome: string; version: string; changes: Record<string, unknown> }>(
      db,
      sql`select outcome, version::text, changes from entity_transition`,
    );
    expect(t).toEqual({
      outcome: "applied",
      version: "1000",
      changes: {
        customerId: { from: null, to: "cus_HandlerTest01" },
        plan: { from: null, to: "price_Basic001" },
        status: { from: null, to: "trialing" },
      },
    });
  });

  it("[handlers] an older update arriving after a newer one is recorded stale and changes nothing", async () => {
    await claim(db, "stripe", sub("evt_new", 2000, { priceId: "price_Pro002", status: "active" }));
    await drain(db);
    await claim(db, "stripe", sub("evt_old", 1500, { priceId: "price_Basic001", status: "past_due" }));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["stale"]);
    expect(await subscriptionRow()).toMatchObject({
      plan: "price_Pro002",
      status: "active",
      version: "2000",
      updated_by_event: "evt_new",
    });
    const timeline = await query<{ event_id: string; outcome: string; note: string | null }>(
      db,
      sql`select event_id, outcome, note from entity_transition order by id`,
    );
    expect(timeline).toEqual([
      { event_id: "evt_new", outcome: "applied", note: null },
      { event_id: "evt_old", outcome: "stale", note: "older: version 1500 < applied version 2000 (event evt_new)" },
    ]);
    const [ev] = await query<{ status: string }>(db, sql`select status from webhook_event where event_id = 'evt_old'`);
    expect(ev?.status).toBe("settled");
  });

  it("[handlers] an update in the same second with no evidence and no API is recorded as a tie, naming both events", async () => {
    await claim(db, "stripe", sub("evt_first", 3000, { status: "active" }));
    await drain(db);
    await claim(db, "stripe", sub("evt_same_second", 3000, { status: "canceled" }));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["tie"]);
    const [t] = await query<Record<string, unknown>>(
      db,
      sql`select outcome, note, prior_version::int as prior_version, prior_event_id, resolution
          from entity_transition where event_id = 'evt_same_second'`,
    );
    expect(t).toMatchObject({ outcome: "tie", prior_version: 3000, prior_event_id: "evt_first", resolution: null });
    expect(t?.note).toMatch(/^tie at version 3000 with event evt_first: the order could not be decided/);
    expect((await subscriptionRow())?.status).toBe("active");
    const [a] = await query<{ outcome: string }>(
      db,
      sql`select outcome from webhook_attempt where event_id = 'evt_same_second'`,
    );
    expect(a?.outcome).toBe("tie");
  });

  it("[handlers] a delete keeps the row canceled at its version, so a late older update cannot revive it", async () => {
    await claim(db, "stripe", sub("evt_del", 5000, { type: "customer.subscription.deleted", status: "canceled" }));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["settled"]);
    expect(await subscriptionRow()).toMatchObject({ status: "canceled", version: "5000", updated_by_event: "evt_del" });
    // Only now, with the row already canceled, does the older update arrive.
    await claim(db, "stripe", sub("evt_late", 4000, { status: "active" }));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["stale"]);
    expect(await subscriptionRow()).toMatchObject({ status: "canceled", version: "5000", updated_by_event: "evt_del" });
  });

  it("[handlers] a subscription event without items is dead at once (permanent), with a clear error and no state", async () => {
    const payload = sub("evt_noitems", 6000);
    (payload.data.object as { items: unknown }).items = { object: "list", data: [] };
    await claim(db, "stripe", payload);
    const results = await drain(db);
    expect(results.map((r) => [r.outcome, r.errorKind])).toEqual([["dead", "permanent"]]);
    expect(await query(db, sql`select outcome, error_kind, error_detail from webhook_attempt`)).toEqual([
      {
        outcome: "failed",
        error_kind: "permanent",
        error_detail: { path: ["data", "object", "items", "data", 0, "price", "id"], problem: "missing" },
      },
    ]);
    const [ev] = await query<{ status: string; last_error: string }>(
      db,
      sql`select status, last_error from webhook_event`,
    );
    expect(ev?.status).toBe("dead");
    expect(ev?.last_error).toBe(
      "permanent: payload has no data.object.items.data[0].price.id (a subscription needs at least one item)",
    );
    expect(await query(db, sql`select 1 from subscription`)).toHaveLength(0);
    expect(await query(db, sql`select 1 from entity_version`)).toHaveLength(0);
  });
});

describe("stripe invoice.paid (delta)", () => {
  it("[handlers] each paid invoice adds its amount to the customer's total exactly once, duplicates included", async () => {
    for (const [id, amount] of [
      ["evt_p1", 1000],
      ["evt_p2", 2500],
      ["evt_p1", 1000],
    ] as const)
      await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: id, amount, customerId: "cus_DeltaTest001" }));
    await drain(db);
    const rows = await query<{ amount_paid: string; invoice_count: number; currency: string }>(
      db,
      sql`select amount_paid::text, invoice_count, currency from customer_total`,
    );
    expect(rows).toEqual([{ amount_paid: "3500", invoice_count: 2, currency: "usd" }]);
  });
});

describe("paddle subscription.*", () => {
  it("[handlers] versions compare to the microsecond: an event 1 µs older is stale", async () => {
    const ev = (eventId: string, occurredAt: string, status: string) =>
      paddleSubscriptionEvent({
        eventId,
        occurredAt,
        status,
        subscriptionId: "sub_01hpaddletest",
        customerId: "ctm_01hpaddletest",
      });
    await claim(db, "paddle", ev("evt_01new", "2026-11-29T10:00:00.000002Z", "active"));
    await claim(db, "paddle", ev("evt_01old", "2026-11-29T10:00:00.000001Z", "past_due"));
    const outcomes = Object.fromEntries((await drain(db)).map((r) => [r.eventId, r.outcome]));
    expect(outcomes).toEqual({ evt_01new: "settled", evt_01old: "stale" });
    expect(
      await query(db, sql`select status, version::text, customer_id from subscription where source = 'paddle'`),
    ).toEqual([
      {
        status: "active",
        version: String(Date.parse("2026-11-29T10:00:00Z") * 1000 + 2),
        customer_id: "ctm_01hpaddletest",
      },
    ]);
  });

  it("[handlers] subscription.canceled stores status canceled", async () => {
    await claim(db, "paddle", paddleSubscriptionEvent({ eventType: "subscription.canceled", status: "canceled" }));
    await drain(db);
    expect(await query(db, sql`select status from subscription`)).toEqual([{ status: "canceled" }]);
  });
});

describe("shopify orders/*", () => {
  it("[handlers] orders/updated is versioned by updated_at and a stale update leaves the newer order", async () => {
    const headers = (id: string, topic = "orders/updated") => ({
      "x-shopify-webhook-id": id,
      "x-shopify-topic": topic,
    });
    await claim(
      db,
      "shopify",
      shopifyOrder({ updatedAt: "2026-11-29T06:00:00-04:00", financialStatus: "paid" }),
      headers("w-new"),
    );
    await claim(
      db,
      "shopify",
      shopifyOrder({ updatedAt: "2026-11-29T05:59:59-04:00", financialStatus: "pending" }),
      headers("w-old"),
    );
    await drain(db);
    expect(await query(db, sql`select financial_status, updated_by_event, email from "order"`)).toEqual([
      { financial_status: "paid", updated_by_event: "w-new", email: "Jon.Snow@Example.com" },
    ]);
  });
});

describe("unhandled types", () => {
  it("[handlers] an event type no handler claims settles with attempt outcome ignored", async () => {
    await claim(db, "stripe", {
      id: "evt_unhandled",
      object: "event",
      type: "charge.refund.updated",
      created: 1,
      data: { object: { id: "re_1", object: "refund" } },
    });
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["ignored"]);
    expect(
      await query(
        db,
        sql`select e.status, a.outcome, a.trigger, a.number from webhook_event e join webhook_attempt a using (source, event_id)`,
      ),
    ).toEqual([{ status: "settled", outcome: "ignored", trigger: "auto", number: 1 }]);
  });
});
