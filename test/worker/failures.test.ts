import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { handlerLookup } from "@/lib/handlers/registry";
import { leaseDue } from "@/lib/ledger/lease";
import { processLeased } from "@/lib/ledger/process";
import { shopifyOrder } from "@/lib/samples/shopify";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "./helpers";

const { db } = setupTestDb();

describe("a failure says whether retrying can help", () => {
  it("[worker] a transient failure (the source not known yet) backs off as failed, attempt by attempt, then dead", async () => {
    // A lookup that knows no source: what a process sees before it has read the console's sources.
    const settings = testSettings({ handlers: handlerLookup(undefined, () => undefined) });
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_unknown_src" }));
    const results = await drain(db, settings);
    // Backed off twice (testSettings: 3 attempts), then dead: a transient error is worth each retry.
    expect(results.map((r) => [r.outcome, r.errorKind])).toEqual([
      ["failed", "transient"],
      ["failed", "transient"],
      ["dead", "transient"],
    ]);
    const [row] = await query<{ status: string; last_error: string }>(
      db,
      sql`select status, last_error from webhook_event`,
    );
    expect(row).toEqual({ status: "dead", last_error: 'source "stripe" is not known to this process (yet): retried' });
    expect(await query(db, sql`select number, outcome, error_kind from webhook_attempt order by number`)).toEqual([
      { number: 1, outcome: "failed", error_kind: "transient" },
      { number: 2, outcome: "failed", error_kind: "transient" },
      { number: 3, outcome: "failed", error_kind: "transient" },
    ]);
  });

  it("[worker] an unreadable event fails alone: its batch-mates settle in the same batch, one attempt each", async () => {
    const broken = stripeSubscriptionEvent({ eventId: "evt_broken", subscriptionId: "sub_Broken0001" });
    (broken.data.object as { items: unknown }).items = { object: "list", data: [] };
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_ok_1", subscriptionId: "sub_Ok00000001" }));
    await claim(db, "stripe", broken);
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_ok_2", subscriptionId: "sub_Ok00000002" }));
    // One lease, one processLeased: the three are one batch.
    const batch = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 });
    expect(batch.map((e) => e.eventId).sort()).toEqual(["evt_broken", "evt_ok_1", "evt_ok_2"]);
    const results = await processLeased(db, batch, { policy: testSettings().policy, handlers: handlerLookup() });
    expect(results.map((r) => [r.eventId, r.outcome]).sort()).toEqual([
      ["evt_broken", "dead"],
      ["evt_ok_1", "settled"],
      ["evt_ok_2", "settled"],
    ]);
    expect(
      await query(
        db,
        sql`select event_id, count(*)::int as n from webhook_attempt group by event_id order by event_id`,
      ),
    ).toEqual([
      { event_id: "evt_broken", n: 1 },
      { event_id: "evt_ok_1", n: 1 },
      { event_id: "evt_ok_2", n: 1 },
    ]);
  });

  it("[worker] a Shopify order whose cancelled_at is not a date is dead at once, as permanent, saying which field", async () => {
    await claim(
      db,
      "shopify",
      { ...shopifyOrder({ id: 8_200_001 }), cancelled_at: "yesterday-ish" },
      {
        "x-shopify-topic": "orders/cancelled",
        "x-shopify-event-id": "ev-bad-date",
      },
    );
    const results = await drain(db);
    expect(results.map((r) => [r.outcome, r.errorKind])).toEqual([["dead", "permanent"]]);
    const [row] = await query<{ last_error: string }>(db, sql`select last_error from webhook_event`);
    expect(row!.last_error).toBe("permanent: payload's order.cancelled_at is not a date: yesterday-ish");
    // The path and the problem are recorded apart from the words, for the console to open.
    expect(await query(db, sql`select error_detail from webhook_attempt`)).toEqual([
      { error_detail: { path: ["cancelled_at"], problem: "not-a-date" } },
    ]);
  });

  it("[worker] a transient failure records no payload path", async () => {
    const settings = testSettings({ handlers: handlerLookup(undefined, () => undefined) });
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_no_detail" }));
    await drain(db, settings);
    const rows = await query<{ error_detail: unknown }>(db, sql`select error_detail from webhook_attempt`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.error_detail === null)).toBe(true);
  });
});
