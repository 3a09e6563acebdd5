import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/roles";
import { FAILING_SAMPLE, getFailingTypes, getStatusCounts, STATUS_COUNT_CAP } from "@/lib/console/overview";
import { BULK_REQUEUE_MAX, countRequeueable } from "@/lib/console/requeue-matching";
import { setupTestDb } from "../db";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const ops: Actor = { id: "o1", email: "ops@example.com", role: "ops" };

/** `n` bare ledger rows of one status and type, received `minutesAgo` apart from now backwards. */
async function rows(n: number, status: string, type: string, from = 0) {
  await seedEvents(
    db,
    "source, event_id, event_type, payload, raw_body, headers, status, received_at",
    sql`
    select 'stripe', ${`${status}_${type}_`} || g, ${type}, '{}'::jsonb, '{}', '{}'::jsonb, ${status},
           now() - (${from}::int + g) * interval '1 second'
    from generate_series(1, ${n}) g`,
  );
}

describe("overview counts on a large ledger", () => {
  it("[console] a status past the cap is the statistics' estimate and is marked estimated; settled is rows now minus the rest", async () => {
    await rows(STATUS_COUNT_CAP + 2000, "dead", "invoice.paid");
    await rows(200_000, "settled", "invoice.paid", 100_000);
    await rows(3, "claimed", "invoice.paid");
    await db.execute(sql`analyze webhook_event_state, webhook_event_body`);

    const { counts, estimated, settledApproximate } = await getStatusCounts(db, ops);
    expect(estimated.sort()).toEqual(["dead", "settled"]);
    expect(settledApproximate).toBe(true);
    expect(counts.claimed).toBe(3);
    expect(counts.dead).toBeGreaterThan(STATUS_COUNT_CAP);
    // Within a few percent: the share comes from analyze's sample.
    expect(Math.abs(counts.dead - 12_000)).toBeLessThan(1_500);
    expect(Math.abs(counts.settled + counts.dead + counts.claimed - 212_003)).toBeLessThan(2_000);
  });

  it("[console] failing types past the sample are counted among the newest failures and say so", async () => {
    // The newest dead are of a type that only started failing; the old pile is of another.
    await rows(300, "dead", "charge.failed");
    await rows(FAILING_SAMPLE + 500, "dead", "invoice.paid", 1_000);
    await rows(2, "failed", "invoice.upcoming");
    const failing = await getFailingTypes(db, ops);
    expect(failing.map((f) => [f.eventType, f.failed, f.dead, f.approximate])).toEqual([
      ["invoice.paid", 0, FAILING_SAMPLE + 1 - 300, true],
      ["charge.failed", 0, 300, true],
      ["invoice.upcoming", 2, 0, true],
    ]);
  });

  it("[console] failing types are exact while the failed and dead sets are small", async () => {
    await rows(4, "dead", "invoice.paid");
    await rows(2, "failed", "invoice.paid");
    expect(await getFailingTypes(db, ops)).toEqual([
      { source: "stripe", eventType: "invoice.paid", failed: 2, dead: 4 },
    ]);
  });

  it("[console] the requeue count stops one past the bulk requeue's maximum", async () => {
    await rows(BULK_REQUEUE_MAX + 50, "dead", "invoice.paid");
    expect(await countRequeueable(db, ops, {})).toBe(BULK_REQUEUE_MAX + 1);
    expect(await countRequeueable(db, ops, { type: ["charge.failed"] })).toBe(0);
  });
});
