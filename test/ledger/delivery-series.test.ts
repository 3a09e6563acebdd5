import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { deliverySeriesQuery, getDeliverySeries } from "@/lib/console/delivery-series";
import { setupTestDb } from "../db";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
const now = new Date("2026-03-10T12:34:56.000Z");

async function delivered(source: string, at: string, claimed = true) {
  await db.execute(sql`insert into webhook_delivery (source, event_id, received_at, via, claimed)
                       values (${source}, ${`evt_${Math.random()}`}, ${at}::timestamptz, 'provider', ${claimed})`);
}

describe("the delivery series", () => {
  it("[console] buckets the last 24 h per source, zero-filled, oldest first, ending with the bucket that holds now", async () => {
    await delivered("stripe", "2026-03-10T12:31:00Z");
    await delivered("stripe", "2026-03-10T12:30:00Z", false);
    await delivered("github", "2026-03-10T12:39:59Z");
    await delivered("stripe", "2026-03-09T12:40:00Z"); // the first bucket's first instant
    await delivered("shopify", "2026-03-09T12:39:59Z"); // just before the window
    await delivered("paddle", "2026-03-10T12:40:00Z"); // the next bucket, after now's
    const s = await getDeliverySeries(db, support, { hours: 24, bucketMinutes: 10, now });
    expect(s.buckets).toHaveLength(144);
    expect(s.from.toISOString()).toBe("2026-03-09T12:40:00.000Z");
    expect(s.to.toISOString()).toBe("2026-03-10T12:40:00.000Z");
    expect(s.buckets[0]!.start.toISOString()).toBe("2026-03-09T12:40:00.000Z");
    expect(s.buckets.at(-1)!.start.toISOString()).toBe("2026-03-10T12:30:00.000Z");
    expect(s.sources).toEqual(["github", "stripe"]);
    expect(s.buckets[0]!.bySource).toEqual({ github: 0, stripe: 1 });
    expect(s.buckets[1]!.bySource).toEqual({ github: 0, stripe: 0 });
    expect(s.buckets.at(-1)).toMatchObject({ bySource: { github: 1, stripe: 2 }, total: 3, duplicates: 1 });
    expect(s.totals).toEqual({ deliveries: 4, duplicates: 1, bySource: { github: 1, stripe: 3 } });
    const steps = s.buckets.slice(1).map((b, i) => b.start.getTime() - s.buckets[i]!.start.getTime());
    expect(new Set(steps)).toEqual(new Set([600_000]));
  });

  it("[console] a quiet day is a full run of empty buckets with no sources", async () => {
    const s = await getDeliverySeries(db, support, { hours: 24, bucketMinutes: 5, now });
    expect(s.buckets).toHaveLength(288);
    expect(s.sources).toEqual([]);
    expect(s.buckets.every((b) => b.total === 0 && Object.keys(b.bySource).length === 0)).toBe(true);
    expect(s.totals.deliveries).toBe(0);
  });

  it("[console] refuses a bucket that does not divide the window, too many points, and a caller without a role", async () => {
    await expect(getDeliverySeries(db, support, { hours: 24, bucketMinutes: 7 })).rejects.toThrow(/whole number/);
    await expect(getDeliverySeries(db, support, { hours: 24 * 31, bucketMinutes: 1 })).rejects.toThrow(/at most/);
    await expect(getDeliverySeries(db, undefined, { hours: 24, bucketMinutes: 10 })).rejects.toThrow(ForbiddenError);
  });

  it("[console] reads the window through the received_at index", async () => {
    await db.execute(sql`insert into webhook_delivery (source, event_id, received_at, via, claimed)
      select 'stripe', 'evt_' || n, now() - make_interval(days => n % 365), 'provider', true
      from generate_series(1, 20000) n`);
    await db.execute(sql`analyze webhook_delivery`);
    const to = new Date();
    const from = new Date(to.getTime() - 24 * 3_600_000);
    const plan = await db.execute(sql`explain ${deliverySeriesQuery(from, to, 10)}`);
    expect(JSON.stringify(plan)).toContain("webhook_delivery_received_idx");
  });
});
