import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";

/** A minute is folded once it is this old: a claim commits within WEBHOOK_CLAIM_TIMEOUT_MS of its received_at. */
const CLOSED_AFTER = sql`interval '2 minutes'`;
/** Folded minutes are kept this long: the longest chart window (31 days) and a day. */
const HORIZON = sql`interval '32 days'`;
// Any fixed 64-bit number: one folder at a time.
const FOLD_LOCK_KEY = 7_312_604_118_022_031n;

export interface MinuteCount {
  /** The minute's start, UTC ISO. */
  minute: string;
  source: string;
  deliveries: number;
  duplicates: number;
}

const foldSpan = (from: SQL, to: SQL) => sql`
  insert into delivery_minute (minute, source, deliveries, duplicates)
  select date_trunc('minute', received_at), source, count(*), count(*) filter (where not claimed)
  from webhook_delivery
  where received_at >= ${from} and received_at < ${to}
  group by 1, 2
  on conflict (minute, source) do update set deliveries = excluded.deliveries, duplicates = excluded.duplicates`;

interface Span {
  foldedFrom: string;
  foldedTo: string;
}

/**
 * Folds the closed minutes from `from` on that delivery_minute does not hold yet: after the last fold, and
 * before its start when a longer window is asked for (a span that no longer touches the window starts over).
 * One folder at a time; a page load that finds the lock taken reads the span as it is. Returns the span folded.
 */
async function fold(db: Db, from: string): Promise<Span | undefined> {
  return db.transaction(async (tx) => {
    const [lock] = rowsOf<{ ok: boolean }>(
      await tx.execute(sql`select pg_try_advisory_xact_lock(${FOLD_LOCK_KEY}) as ok`),
    );
    const [span] = rowsOf<{ folded_from: string | null; folded_to: string | null; closed: string; floor: string }>(
      await tx.execute(sql`
        select r.folded_from::text, r.folded_to::text, c.closed::text as closed,
               greatest(${from}::timestamptz, date_trunc('minute', now() - ${HORIZON}))::text as floor
        from (select date_trunc('minute', now() - ${CLOSED_AFTER}) as closed) c
        left join delivery_rollup r on r.id = 1`),
    );
    if (!span) return undefined;
    if (!lock?.ok)
      return span.folded_from && span.folded_to
        ? { foldedFrom: span.folded_from, foldedTo: span.folded_to }
        : undefined;
    const at = (v: string) => sql`${v}::timestamptz`;
    const time = (v: string) => new Date(v).getTime();
    let start = span.folded_from ?? span.closed;
    let end = span.folded_to ?? span.closed;
    if (time(end) < time(span.floor) || time(start) > time(end)) start = end = span.floor;
    if (time(span.floor) < time(start)) {
      await tx.execute(foldSpan(at(span.floor), at(start)));
      start = span.floor;
    }
    if (time(end) < time(span.closed)) {
      await tx.execute(foldSpan(at(end), at(span.closed)));
      end = span.closed;
    }
    const [kept] = rowsOf<{ folded_from: string; folded_to: string }>(
      await tx.execute(sql`
        insert into delivery_rollup (id, folded_from, folded_to)
        values (1, greatest(${at(start)}, date_trunc('minute', now() - ${HORIZON})), ${at(end)})
        on conflict (id) do update set folded_from = excluded.folded_from, folded_to = excluded.folded_to
        returning folded_from::text, folded_to::text`),
    );
    await tx.execute(sql`delete from delivery_minute where minute < ${at(kept!.folded_from)}`);
    return { foldedFrom: kept!.folded_from, foldedTo: kept!.folded_to };
  });
}

/**
 * Deliveries (duplicates included) per whole minute and source since the minute that holds `since`, oldest
 * first: folded minutes from delivery_minute, the last two or so counted from webhook_delivery. A day costs
 * 1,440 rows a source however busy it was; only the first look at a window folds it (its rows, once).
 */
export async function deliveryMinutes(db: Db, since: Date): Promise<MinuteCount[]> {
  const start = new Date(Math.floor(since.getTime() / 60_000) * 60_000).toISOString();
  const span = await fold(db, start);
  // The rollup where it covers the window; counted live after it. Both bounds are values, not a sub-select:
  // PostgreSQL then knows the live range is minutes long (guessing a third of the table, it compiles the plan).
  const liveFrom =
    span && new Date(span.foldedFrom).getTime() <= new Date(start).getTime()
      ? new Date(Math.max(new Date(span.foldedTo).getTime(), new Date(start).getTime())).toISOString()
      : start;
  const rows = rowsOf<{ minute: string; source: string; n: number; dups: number }>(
    await db.execute(sql`
      select to_char(minute at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as minute, source,
             deliveries as n, duplicates as dups
      from delivery_minute
      where minute >= ${start}::timestamptz and minute < ${liveFrom}::timestamptz
      union all
      select to_char(date_trunc('minute', received_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), source,
             count(*)::int, (count(*) filter (where not claimed))::int
      from webhook_delivery
      where received_at >= ${liveFrom}::timestamptz
      group by 1, 2
      order by 1, 2`),
  );
  return rows.map((r) => ({ minute: r.minute, source: r.source, deliveries: Number(r.n), duplicates: Number(r.dups) }));
}
