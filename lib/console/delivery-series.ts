import { sql, type SQL } from "drizzle-orm";
import { arrivalsSql, duplicateArrivalsSql } from "@/db/delivery-arrivals";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { authorize, type Actor } from "@/lib/roles";

/** At most this many buckets: a chart of more points than pixels says nothing more and costs the browser. */
export const MAX_BUCKETS = 2000;

export const DeliverySeriesInput = z
  .object({
    hours: z
      .number()
      .int()
      .min(1)
      .max(24 * 31),
    bucketMinutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60),
    /** The end of the window (tests pin it); defaults to now. */
    now: z.date().optional(),
  })
  .refine((v) => (v.hours * 60) % v.bucketMinutes === 0, "hours must be a whole number of buckets")
  .refine((v) => (v.hours * 60) / v.bucketMinutes <= MAX_BUCKETS, `at most ${MAX_BUCKETS} buckets`);
export type DeliverySeriesInput = z.input<typeof DeliverySeriesInput>;

export interface DeliveryBucket {
  /** The bucket's first instant (UTC, aligned to the epoch in bucketMinutes steps). */
  start: Date;
  /** Deliveries per source in this bucket, every source of the window present (zero-filled). */
  bySource: Record<string, number>;
  total: number;
  /** Deliveries of an event already claimed: traffic that did no work. */
  duplicates: number;
}

export interface DeliverySeries {
  hours: number;
  bucketMinutes: number;
  /** The window: [from, to), to being the end of the bucket that holds `now`. */
  from: Date;
  to: Date;
  /** The sources that delivered in the window, by name. */
  sources: string[];
  /** Oldest first, one per bucket, empty buckets included. */
  buckets: DeliveryBucket[];
  totals: { deliveries: number; duplicates: number; bySource: Record<string, number> };
}

/** The series' statement, exported for the EXPLAIN test: the window is a range on webhook_delivery_received_idx. */
export function deliverySeriesQuery(from: Date, to: Date, bucketMinutes: number): SQL {
  return sql`
    with d as (
      select date_bin(make_interval(mins => ${bucketMinutes}::int), received_at, timestamptz 'epoch') as start,
             source, ${arrivalsSql()}::int as n, ${duplicateArrivalsSql()}::int as dups
      from webhook_delivery
      where received_at >= ${from.toISOString()}::timestamptz and received_at < ${to.toISOString()}::timestamptz
      group by 1, 2
    ),
    s as (select distinct source from d),
    b as (
      select generate_series(
               ${from.toISOString()}::timestamptz,
               ${to.toISOString()}::timestamptz - make_interval(mins => ${bucketMinutes}::int),
               make_interval(mins => ${bucketMinutes}::int)) as start
    )
    select to_char(b.start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as start, s.source,
           coalesce(d.n, 0)::int as n, coalesce(d.dups, 0)::int as dups
    from b
    left join s on true
    left join d on d.start = b.start and d.source = s.source
    order by b.start, s.source`;
}

/**
 * Deliveries (duplicates included: they are traffic too) per bucket and source over the last `hours`,
 * read from webhook_delivery through its received_at index, so the cost is the window's rows, not
 * history's. Rows only: past an event's last few duplicates the older ones are counted on its newest row
 * (lib/intake/claim.ts), not here, so a replay flood of one event shows as that event's few. Buckets come
 * from generate_series: a quiet hour is a run of zeros, not a gap in the chart.
 */
export async function getDeliverySeries(
  db: Db,
  actor: Actor | undefined,
  input: DeliverySeriesInput,
): Promise<DeliverySeries> {
  authorize(actor, "events.read");
  const { hours, bucketMinutes, now = new Date() } = DeliverySeriesInput.parse(input);
  const step = bucketMinutes * 60_000;
  const to = new Date((Math.floor(now.getTime() / step) + 1) * step);
  const from = new Date(to.getTime() - hours * 3_600_000);
  const rows = rowsOf<{ start: string; source: string | null; n: number; dups: number }>(
    await db.execute(deliverySeriesQuery(from, to, bucketMinutes)),
  );
  const sources = [...new Set(rows.flatMap((r) => (r.source === null ? [] : [r.source])))].sort();
  const buckets: DeliveryBucket[] = [];
  const totals = { deliveries: 0, duplicates: 0, bySource: Object.fromEntries(sources.map((s) => [s, 0])) };
  for (const r of rows) {
    let b = buckets.at(-1);
    if (!b || b.start.toISOString().slice(0, 19) !== r.start.slice(0, 19)) {
      b = { start: new Date(r.start), bySource: {}, total: 0, duplicates: 0 };
      buckets.push(b);
    }
    if (r.source === null) continue;
    const n = Number(r.n);
    const dups = Number(r.dups);
    b.bySource[r.source] = n;
    b.total += n;
    b.duplicates += dups;
    totals.deliveries += n;
    totals.duplicates += dups;
    totals.bySource[r.source] = (totals.bySource[r.source] ?? 0) + n;
  }
  return { hours, bucketMinutes, from, to, sources, buckets, totals };
}
