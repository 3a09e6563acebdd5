import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paddleSubscriptionEvent } from "@/lib/samples/paddle";
import { shopifyOrder } from "@/lib/samples/shopify";
import { stripeSubscriptionEvent } from "@/lib/samples/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "./helpers";

const { db } = setupTestDb();

/**
 * The subscription handlers write a whole batch in one statement (writeMany). What they leave must be what
 * one write per event leaves: the same rows, the same timeline changes per event, whatever the batch holds
 * (chains of one subscription, several subscriptions, stale events among them, both providers).
 */

const STATUSES = ["trialing", "active", "past_due", "canceled"] as const;
const PRICES = ["price_basic", "price_pro"] as const;

interface Step {
  sub: number;
  created: number;
  status: (typeof STATUSES)[number];
  price: (typeof PRICES)[number];
  paddle: boolean;
}

const step = fc.record({
  sub: fc.integer({ min: 0, max: 3 }),
  // Distinct enough to rarely tie; a tie is a separate property (test/worker/ties.test.ts).
  created: fc.integer({ min: 0, max: 40 }),
  status: fc.constantFrom(...STATUSES),
  price: fc.constantFrom(...PRICES),
  paddle: fc.boolean(),
});

async function play(steps: readonly Step[], tag: string, batchSize: number) {
  for (const [i, s] of steps.entries()) {
    const subscriptionId = `sub_${tag}${s.sub}`;
    if (s.paddle)
      await claim(
        db,
        "paddle",
        paddleSubscriptionEvent({
          eventId: `evt_${tag}_${i}`,
          subscriptionId,
          occurredAt: new Date(Date.UTC(2024, 3, 12, 10, 0, s.created, i)).toISOString().replace("Z", "000Z"),
          status: s.status,
          priceId: s.price,
        }),
      );
    else
      await claim(
        db,
        "stripe",
        stripeSubscriptionEvent({
          eventId: `evt_${tag}_${i}`,
          subscriptionId,
          created: 1712917000 + s.created * 1000 + i,
          status: s.status,
          priceId: s.price,
        }),
      );
  }
  await drain(db, testSettings({ batchSize }));
  const rows = await query<{ source: string; sub: string; status: string; plan: string; by: string }>(
    db,
    sql`select source, replace(external_id, ${tag}, '') as sub, status, plan, replace(updated_by_event, ${tag}, '') as by
        from subscription where external_id like ${`sub_${tag}%`} order by 1, 2`,
  );
  const timeline = await query<{ event: string; outcome: string; changes: unknown }>(
    db,
    sql`select replace(event_id, ${tag}, '') as event, outcome, changes from entity_transition
        where entity_id like ${`sub_${tag}%`} order by event_id`,
  );
  return { rows, timeline };
}

describe("batched business writes", () => {
  it("[worker] a chain of three updates of one subscription in one batch: each step's changes are against the step before", async () => {
    const steps: Step[] = [
      { sub: 0, created: 1, status: "trialing", price: "price_basic", paddle: false },
      { sub: 0, created: 2, status: "active", price: "price_basic", paddle: false },
      { sub: 0, created: 3, status: "active", price: "price_pro", paddle: false },
    ];
    const { rows, timeline } = await play(steps, "C", 50);
    expect(rows).toEqual([{ source: "stripe", sub: "sub_0", status: "active", plan: "price_pro", by: "evt__2" }]);
    expect(timeline.map((t) => t.changes)).toEqual([
      {
        customerId: { from: null, to: "cus_NZbFQAsc0ptasX" },
        plan: { from: null, to: "price_basic" },
        status: { from: null, to: "trialing" },
      },
      { status: { from: "trialing", to: "active" } },
      { plan: { from: "price_basic", to: "price_pro" } },
    ]);
  });

  it("[worker] any batch leaves the rows and timeline that one event at a time leaves", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 24 }), async (steps) => {
        run++;
        const batched = await play(steps, `B${run}x`, 50);
        const single = await play(steps, `S${run}x`, 1);
        expect(batched).toEqual(single);
      }),
      { numRuns: 25 },
    );
  });

  it("[worker] a chain of three updates of one Shopify order in one batch: each step's changes are against the step before", async () => {
    const steps = [
      { second: 1, financialStatus: "pending", fulfillmentStatus: null },
      { second: 2, financialStatus: "paid", fulfillmentStatus: null },
      { second: 3, financialStatus: "paid", fulfillmentStatus: "fulfilled" },
    ];
    for (const [i, st] of steps.entries())
      await claim(
        db,
        "shopify",
        shopifyOrder({
          id: 8_100_001,
          updatedAt: new Date(Date.UTC(2024, 3, 12, 10, 0, st.second)).toISOString(),
          financialStatus: st.financialStatus,
          fulfillmentStatus: st.fulfillmentStatus,
        }),
        { "x-shopify-topic": "orders/updated", "x-shopify-event-id": `ev-chain-${i}` },
      );
    await drain(db, testSettings({ batchSize: 50 }));
    const timeline = await query<{ changes: unknown }>(
      db,
      sql`select changes from entity_transition where entity_type = 'order' order by id`,
    );
    expect(timeline.map((t) => t.changes)).toEqual([
      {
        name: { from: null, to: "#1042" },
        email: { from: null, to: "Jon.Snow@Example.com" },
        financialStatus: { from: null, to: "pending" },
        totalPrice: { from: null, to: "199.00" },
        currency: { from: null, to: "USD" },
      },
      { financialStatus: { from: "pending", to: "paid" } },
      { fulfillmentStatus: { from: null, to: "fulfilled" } },
    ]);
    expect(await query(db, sql`select financial_status, fulfillment_status, updated_by_event from "order"`)).toEqual([
      { financial_status: "paid", fulfillment_status: "fulfilled", updated_by_event: "ev-chain-2:orders/updated" },
    ]);
  });

  it("[worker] Shopify orders too: any batch leaves the order rows and timeline that one event at a time leaves", async () => {
    const FINANCIAL = ["pending", "paid", "refunded"] as const;
    const orderStep = fc.record({
      order: fc.integer({ min: 0, max: 2 }),
      second: fc.integer({ min: 0, max: 30 }),
      financial: fc.constantFrom(...FINANCIAL),
      fulfilled: fc.boolean(),
      total: fc.constantFrom("10.00", "199.00"),
    });
    const playOrders = async (
      steps: { order: number; second: number; financial: string; fulfilled: boolean; total: string }[],
      tag: string,
      base: number,
      batchSize: number,
    ) => {
      for (const [i, st] of steps.entries()) {
        const updatedAt = new Date(Date.UTC(2024, 3, 12, 10, 0, st.second, i)).toISOString();
        await claim(
          db,
          "shopify",
          shopifyOrder({
            id: base + st.order,
            updatedAt,
            financialStatus: st.financial,
            fulfillmentStatus: st.fulfilled ? "fulfilled" : null,
            totalPrice: st.total,
          }),
          { "x-shopify-topic": "orders/updated", "x-shopify-event-id": `ev-${tag}-${i}` },
        );
      }
      await drain(db, testSettings({ batchSize }));
      const rows = await query<Record<string, unknown>>(
        db,
        sql`select (external_id::bigint - ${base})::int as n, financial_status, fulfillment_status, total_price,
                   replace(updated_by_event, ${tag}, '') as by
            from "order" where external_id::bigint between ${base} and ${base + 9} order by 1`,
      );
      const timeline = await query<Record<string, unknown>>(
        db,
        sql`select replace(event_id, ${tag}, '') as event, outcome, changes from entity_transition
            where entity_type = 'order' and entity_id::bigint between ${base} and ${base + 9} order by id`,
      );
      return { rows, timeline };
    };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(orderStep, { minLength: 1, maxLength: 16 }), async (steps) => {
        run++;
        const batched = await playOrders(steps, `B${run}`, 9_000_000 + run * 20, 50);
        const single = await playOrders(steps, `S${run}`, 9_000_010 + run * 20, 1);
        expect(batched.timeline.length).toBe(steps.length);
        expect(batched).toEqual(single);
      }),
      { numRuns: 20 },
    );
  });
});
