import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { DEAD_COUNT_CAP, getBacklog, getFailingTypes, getStatusCounts, listDeadEvents } from "@/lib/console/overview";
import { getDeliverySeries } from "@/lib/console/delivery-series";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };

async function seed() {
  for (let i = 0; i < 6; i++)
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: `evt_s${i}`, subscriptionId: `sub_1Over${i}0000` }));
  for (let i = 0; i < 3; i++)
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: `evt_i${i}`, invoiceId: `in_1Over${i}000` }));
  await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_i0" })); // a duplicate delivery
  await db.execute(
    sql`update webhook_event_state set status = 'settled' where event_id in ('evt_s0', 'evt_s1', 'evt_s2')`,
  );
  await db.execute(
    sql`update webhook_event_state set status = 'dead', last_error = 'boom', received_at = now() - interval '2 hours' where event_id in ('evt_i0', 'evt_i1')`,
  );
  await db.execute(
    sql`update webhook_event_state set status = 'failed', next_attempt_at = now() + interval '1 hour' where event_id = 'evt_i2'`,
  );
  await db.execute(
    sql`update webhook_event_state set received_at = now() - interval '90 minutes' where event_id = 'evt_s3'`,
  );
}

describe("the overview", () => {
  it("[console] counts every status exactly on a small ledger", async () => {
    await seed();
    const { counts, settledApproximate } = await getStatusCounts(db, support);
    expect(counts).toEqual({ claimed: 3, processing: 0, settled: 3, failed: 1, dead: 2 });
    expect(settledApproximate).toBe(false);
  });

  it("[console] the backlog is the work still owed, with the age of its oldest event and what is due now", async () => {
    await seed();
    const backlog = await getBacklog(db, support);
    expect(backlog.size).toBe(4); // 3 claimed + 1 failed
    expect(backlog.dueNow).toBe(3); // the failed one backs off for an hour
    // evt_s3 was received 90 minutes ago.
    expect(Date.now() - backlog.oldestReceivedAt!.getTime()).toBeGreaterThan(89 * 60_000);
    expect(Date.now() - backlog.oldestReceivedAt!.getTime()).toBeLessThan(91 * 60_000);
  });

  it("[console] the chart's deliveries by source count duplicates as traffic and as duplicates", async () => {
    await seed();
    const day = { hours: 24, bucketMinutes: 10 };
    expect((await getDeliverySeries(db, support, day)).totals).toEqual({
      deliveries: 10,
      duplicates: 1,
      bySource: { stripe: 10 },
    });
    await db.execute(sql`update webhook_delivery set received_at = now() - interval '25 hours'`);
    expect((await getDeliverySeries(db, support, day)).totals).toEqual({ deliveries: 0, duplicates: 0, bySource: {} });
  });

  it("[console] the chart counts every arrival a delivery row stands for (a flood past the rows an event keeps)", async () => {
    await seed();
    // A row that replaced 40 older duplicates (lib/intake/claim.ts) is 41 arrivals.
    await db.execute(
      sql`update webhook_delivery set replaced = 40 where id = (select max(id) from webhook_delivery where not claimed)`,
    );
    expect((await getDeliverySeries(db, support, { hours: 24, bucketMinutes: 10 })).totals).toEqual({
      deliveries: 50,
      duplicates: 41,
      bySource: { stripe: 50 },
    });
  });

  it("[console] the failing types and the dead events needing a person", async () => {
    await seed();
    expect(await getFailingTypes(db, support)).toEqual([
      { source: "stripe", eventType: "invoice.paid", failed: 1, dead: 2 },
    ]);
    const dead = await listDeadEvents(db, support);
    expect([dead.total, dead.more]).toEqual([2, false]);
    expect(dead.rows.map((r) => [r.eventId, r.lastError])).toEqual([
      ["evt_i1", "boom"],
      ["evt_i0", "boom"],
    ]);
  });

  it("[console] a dead pile past the cap reads as 1,000+ rather than being counted row by row", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status",
      sql`select 'stripe', 'evt_dead_' || n, 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, 'dead' from generate_series(1, ${DEAD_COUNT_CAP + 1}) n`,
    );
    const dead = await listDeadEvents(db, support);
    expect(DEAD_COUNT_CAP).toBe(1000);
    expect([dead.total, dead.more, dead.rows.length]).toEqual([DEAD_COUNT_CAP, true, 10]);
  });

  it("[console] the overview needs a signed-in role", async () => {
    await expect(getStatusCounts(db, undefined)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(getBacklog(db, undefined)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(getDeliverySeries(db, undefined, { hours: 24, bucketMinutes: 10 })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(listDeadEvents(db, undefined)).rejects.toBeInstanceOf(ForbiddenError);
  });
});
