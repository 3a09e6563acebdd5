import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/roles";
import { getDeliveryRate } from "@/lib/ledger/overview";
import { setupTestDb } from "../db";
import { query } from "../worker/helpers";

const { db } = setupTestDb();
const ops: Actor = { id: "o1", email: "ops@example.com", role: "ops" };

beforeEach(async () => {
  await db.execute(sql`truncate delivery_minute, delivery_rollup`);
});

/** `n` deliveries of `source` at now − `ago`, every third a duplicate. */
async function deliveries(source: string, n: number, ago: string) {
  await db.execute(sql`
    insert into webhook_delivery (source, event_id, received_at, via, claimed)
    select ${source}, 'evt_' || g, now() - ${ago}::interval, 'provider', g % 3 <> 0 from generate_series(1, ${n}) g`);
}

/** The same per-minute counts straight from webhook_delivery. */
const raw = (hours: number) =>
  query<{ minute: string; source: string; deliveries: number; duplicates: number }>(
    db,
    sql`select to_char(date_trunc('minute', received_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as minute, source,
               count(*)::int as deliveries, (count(*) filter (where not claimed))::int as duplicates
        from webhook_delivery where received_at >= date_trunc('minute', now() - make_interval(hours => ${hours}::int))
        group by 1, 2 order by 1, 2`,
  );
const rate = async (hours: number) =>
  (await getDeliveryRate(db, ops, hours)).map((m) => ({ ...m, minute: m.minute.toISOString().replace(".000Z", "Z") }));

describe("deliveries per minute", () => {
  it("[console] closed minutes are read from the rollup and the last ones counted live, with the same numbers", async () => {
    await deliveries("stripe", 7, "3 hours");
    await deliveries("github", 4, "3 hours");
    await deliveries("stripe", 5, "30 minutes");
    await deliveries("stripe", 2, "0 seconds");
    expect(await rate(24)).toEqual(await raw(24));
    // The 3-hour-old and 30-minute-old minutes are folded; the current one is not.
    const folded = await query<{ source: string; deliveries: number }>(
      db,
      sql`select source, deliveries from delivery_minute order by minute, source`,
    );
    expect(folded).toEqual([
      { source: "github", deliveries: 4 },
      { source: "stripe", deliveries: 7 },
      { source: "stripe", deliveries: 5 },
    ]);
    // What arrives next is counted on the next look, from the unfolded tail.
    await deliveries("slack", 3, "0 seconds");
    expect(await rate(24)).toEqual(await raw(24));
  });

  it("[console] a longer window folds the older minutes it needs once, and a window past them reads nothing", async () => {
    await deliveries("stripe", 3, "30 hours");
    await deliveries("stripe", 2, "1 hour");
    expect((await rate(24)).map((m) => m.deliveries)).toEqual([2]);
    expect(await rate(48)).toEqual(await raw(48));
    const [span] = await query<{ hours: number }>(
      db,
      sql`select round(extract(epoch from now() - folded_from) / 3600)::int as hours from delivery_rollup`,
    );
    expect(span?.hours).toBe(48);
    await db.execute(sql`delete from webhook_delivery`);
    expect((await rate(48)).map((m) => m.deliveries)).toEqual([3, 2]);
    expect(await rate(0)).toEqual([]);
  });
});
