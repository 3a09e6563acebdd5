import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/roles";
import { handlerLookup } from "@/lib/handlers/registry";
import { leaseDue, reapExpiredLeases } from "@/lib/ledger/lease";
import { listEvents } from "@/lib/console/list-events";
import { processLeased } from "@/lib/ledger/process";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "u-sup", email: "support@example.com", role: "support" };

const outcomes = () =>
  query<{ event_id: string; status: string; outcome: string | null }>(
    db,
    sql`select event_id, status, outcome from webhook_event order by event_id`,
  );

describe("the event row carries its last attempt's outcome", () => {
  it("[ledger] settle writes settled, stale, ignored and tie on the event row, and the list reads them", async () => {
    const sub = (eventId: string, created: number, status: string, subscriptionId = "sub_1Outcome0001") =>
      stripeSubscriptionEvent({ eventId, created, status, subscriptionId, type: "customer.subscription.updated" });
    await claim(db, "stripe", sub("evt_a_new", 2000, "active"));
    await drain(db);
    await claim(db, "stripe", sub("evt_b_old", 1000, "past_due"));
    await claim(db, "stripe", {
      id: "evt_c_unhandled",
      object: "event",
      type: "charge.refund.updated",
      created: 1,
      data: { object: { id: "re_1", object: "refund" } },
    });
    // Same second as evt_a_new, a different state, and no chain evidence: nothing can order them.
    await claim(db, "stripe", sub("evt_d_tied", 2000, "canceled"));
    await drain(db);
    expect(await outcomes()).toEqual([
      { event_id: "evt_a_new", status: "settled", outcome: "settled" },
      { event_id: "evt_b_old", status: "settled", outcome: "stale" },
      { event_id: "evt_c_unhandled", status: "settled", outcome: "ignored" },
      { event_id: "evt_d_tied", status: "settled", outcome: "tie" },
    ]);
    // The same word as the attempt row it was written with.
    expect(
      await query(
        db,
        sql`select count(*)::int as n from webhook_event e join webhook_attempt a using (source, event_id)
            where a.outcome is distinct from e.outcome`,
      ),
    ).toEqual([{ n: 0 }]);
    const { rows } = await listEvents(db, support, { sort: "received_asc" });
    expect(rows.map((r) => [r.eventId, r.outcome, r.resolution])).toEqual([
      ["evt_a_new", "settled", null],
      ["evt_b_old", "stale", null],
      ["evt_c_unhandled", "ignored", null],
      ["evt_d_tied", "tie", null],
    ]);
  });

  it("[ledger] a failed attempt writes failed, while retrying and once dead, transient or permanent", async () => {
    const settings = testSettings({ handlers: handlerLookup(undefined, () => undefined) });
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_transient" }));
    const ctx = { policy: settings.policy, handlers: settings.handlers };
    await processLeased(db, await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 }), ctx);
    expect(await outcomes()).toEqual([{ event_id: "evt_transient", status: "failed", outcome: "failed" }]);
    await drain(db, settings);
    expect(await outcomes()).toEqual([{ event_id: "evt_transient", status: "dead", outcome: "failed" }]);

    const broken = stripeSubscriptionEvent({ eventId: "evt_unreadable", subscriptionId: "sub_Broken0001" });
    (broken.data.object as { items: unknown }).items = { object: "list", data: [] };
    await claim(db, "stripe", broken);
    await drain(db);
    expect((await outcomes()).find((r) => r.event_id === "evt_unreadable")).toEqual({
      event_id: "evt_unreadable",
      status: "dead",
      outcome: "failed",
    });
  });

  it("[ledger] a reaped lease (the worker died) writes failed", async () => {
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_reaped" }));
    expect(await leaseDue(db, { workerId: "gone", leaseMs: 1, limit: 10 })).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await reapExpiredLeases(db, testSettings().policy)).toHaveLength(1);
    expect(await outcomes()).toEqual([{ event_id: "evt_reaped", status: "failed", outcome: "failed" }]);
  });
});
