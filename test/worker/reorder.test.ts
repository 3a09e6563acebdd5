import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paddleSubscriptionEvent } from "@/test/fixtures/paddle";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { emptyTables, setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "./helpers";

const { db } = setupTestDb();

const STATUSES = ["trialing", "active", "past_due", "unpaid", "canceled"] as const;

const reset = () => emptyTables(db);

describe("newest state wins", () => {
  it("[reorder] any permutation of a Stripe subscription's snapshot events (with duplicates) ends at the newest", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 7 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.integer({ min: 1, max: 4 }),
        async (versions, dupPicks, batchSize) => {
          await reset();
          const events = versions.map((v, i) =>
            stripeSubscriptionEvent({
              eventId: `evt_v${v}`,
              created: v,
              status: STATUSES[i % STATUSES.length],
              priceId: `price_P${v}`,
              subscriptionId: "sub_1Reorder0001",
            }),
          );
          // Deliver in the generated order, plus re-deliveries of some, draining in random batch sizes.
          const deliveries = [...events, ...dupPicks.map((p) => events[p % events.length]!)];
          for (const e of deliveries) await claim(db, "stripe", e);
          await drain(db, testSettings({ batchSize }));
          const newest = events.reduce((a, b) => (b.created > a.created ? b : a));
          const [row] = await query<{ version: string; status: string; plan: string; updated_by_event: string }>(
            db,
            sql`select version::text, status, plan, updated_by_event from subscription`,
          );
          expect(row).toEqual({
            version: String(newest.created),
            status: newest.data.object.status,
            plan: `price_P${newest.created}`,
            updated_by_event: newest.id,
          });
          const outcomes = await query<{ outcome: string; n: number }>(
            db,
            sql`select outcome, count(*)::int as n from entity_transition group by outcome order by outcome`,
          );
          const applied = outcomes.find((o) => o.outcome === "applied")?.n ?? 0;
          const stale = outcomes.find((o) => o.outcome === "stale")?.n ?? 0;
          expect(applied + stale).toBe(events.length); // one timeline row per unique event, duplicates never reach it
          expect(applied).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("[reorder] Paddle events microseconds apart, delivered in any order, end at the newest", async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray([1, 2, 3, 4, 5, 6], { minLength: 6, maxLength: 6 }), async (order) => {
        await reset();
        for (const micro of order)
          await claim(
            db,
            "paddle",
            paddleSubscriptionEvent({
              eventId: `evt_01m${micro}`,
              occurredAt: `2026-11-29T10:00:00.00000${micro}Z`,
              status: micro === 6 ? "active" : "past_due",
            }),
          );
        await drain(db, testSettings({ batchSize: 2 }));
        expect(await query(db, sql`select status, updated_by_event from subscription`)).toEqual([
          { status: "active", updated_by_event: "evt_01m6" },
        ]);
      }),
      { numRuns: 20 },
    );
  });
});
