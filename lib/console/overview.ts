import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import { EVENT_STATUSES, type EventStatus } from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";

/** Above this many rows the settled count is PostgreSQL's estimate: an exact count would scan history. */
const EXACT_COUNT_LIMIT = 200_000;
/** Every other status is counted exactly up to this many (an index-only probe); past it, estimated. */
export const STATUS_COUNT_CAP = 10_000;
const OPEN_STATUSES = EVENT_STATUSES.filter((s) => s !== "settled");

export interface StatusCounts {
  counts: Record<EventStatus, number>;
  /** true when `settled` is an estimate (shown as ≈). */
  settledApproximate: boolean;
  /** Every status whose count is an estimate, shown as ≈: settled on a large ledger, any other past STATUS_COUNT_CAP. */
  estimated: EventStatus[];
}

interface TableStats {
  /** Live rows now: the last analyze's rows per page times the pages the table has now (as the planner reckons). */
  rows: number;
  /** Each status's share of rows at the last analyze. */
  share: Map<string, number>;
}

async function tableStats(db: Db): Promise<TableStats> {
  const [row] = rowsOf<{
    reltuples: number;
    relpages: number;
    pages: number;
    vals: string[] | null;
    freqs: number[] | null;
  }>(
    await db.execute(sql`
      select c.reltuples::float8 as reltuples, c.relpages::float8 as relpages,
             (pg_relation_size(c.oid) / current_setting('block_size')::int)::float8 as pages,
             s.most_common_vals::text::text[] as vals, s.most_common_freqs::float8[] as freqs
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_stats s on s.schemaname = n.nspname and s.tablename = c.relname and s.attname = 'status'
      where c.oid = 'webhook_event_state'::regclass`),
  );
  const reltuples = Number(row?.reltuples ?? -1);
  const relpages = Number(row?.relpages ?? 0);
  const rows = reltuples < 0 ? -1 : relpages > 0 ? (reltuples / relpages) * Number(row?.pages ?? 0) : reltuples;
  const share = new Map((row?.vals ?? []).map((v, i) => [v, Number(row?.freqs?.[i] ?? 0)]));
  return { rows, share };
}

/**
 * Exact while small, estimated where a count would grow with the ledger: each open status is counted up to
 * STATUS_COUNT_CAP through the status index and, past it, read from the column's statistics (its share at the
 * last analyze times the rows now); settled, on a large ledger, is the rows now minus the others.
 */
export async function getStatusCounts(db: Db, actor: Actor | undefined): Promise<StatusCounts> {
  authorize(actor, "events.read");
  const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  const estimated: EventStatus[] = [];
  const capped = rowsOf<{ status: EventStatus; n: number }>(
    await db.execute(sql`
      select s.status, (
        select count(*)::int from (select 1 from webhook_event e where e.status = s.status limit ${STATUS_COUNT_CAP + 1}) c
      ) as n
      from unnest(${pgArray(OPEN_STATUSES, "text")}) as s(status)`),
  );
  const stats = await tableStats(db);
  for (const { status, n } of capped) {
    const share = stats.share.get(status);
    if (Number(n) <= STATUS_COUNT_CAP) counts[status] = Number(n);
    else if (share !== undefined && stats.rows >= 0) {
      counts[status] = Math.max(STATUS_COUNT_CAP + 1, Math.round(share * stats.rows));
      estimated.push(status);
    } else {
      // Never analyzed (a young table): no statistics to read, so count it.
      const [exact] = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from webhook_event where status = ${status}`),
      );
      counts[status] = Number(exact?.n ?? 0);
    }
  }
  if (stats.rows >= EXACT_COUNT_LIMIT) {
    const others = OPEN_STATUSES.reduce((sum, s) => sum + counts[s], 0);
    counts.settled = Math.max(0, Math.round(stats.rows) - others);
    return { counts, settledApproximate: true, estimated: ["settled", ...estimated] };
  }
  const [settled] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from webhook_event where status = 'settled'`),
  );
  counts.settled = Number(settled?.n ?? 0);
  return { counts, settledApproximate: false, estimated };
}

export interface Backlog {
  /** claimed, processing or failed: work the worker still owes. */
  size: number;
  dueNow: number;
  oldestReceivedAt: Date | null;
}

export async function getBacklog(db: Db, actor: Actor | undefined): Promise<Backlog> {
  authorize(actor, "events.read");
  const [row] = rowsOf<{ size: number; due: number; oldest: string | null }>(
    await db.execute(sql`
      select count(*)::int as size, count(*) filter (where status <> 'processing' and next_attempt_at <= now())::int as due,
             min(received_at)::text as oldest
      from webhook_event where status in ('claimed', 'failed', 'processing')`),
  );
  return {
    size: Number(row?.size ?? 0),
    dueNow: Number(row?.due ?? 0),
    oldestReceivedAt: row?.oldest ? new Date(row.oldest) : null,
  };
}

export interface FailingType {
  source: string;
  eventType: string;
  failed: number;
  dead: number;
  /** Counted among the newest FAILING_SAMPLE failed and the newest FAILING_SAMPLE dead events, not all of them. */
  approximate?: true;
}

/** Past this many failed (or dead) events, "failing most" is read from the newest this many of them. */
export const FAILING_SAMPLE = 10_000;

/**
 * The types failing most. Exact while there are at most FAILING_SAMPLE failed and as many dead events; past
 * that, from the newest of each (the status index backwards, index-only), so a dead pile of a million costs
 * what ten thousand do, and the newest failures are the ones that say what is failing now.
 */
export async function getFailingTypes(db: Db, actor: Actor | undefined, limit = 5): Promise<FailingType[]> {
  authorize(actor, "events.read");
  const newest = (status: "failed" | "dead") => sql`
    select source, event_type from webhook_event where status = ${status}
    order by received_at desc limit ${FAILING_SAMPLE + 1}`;
  const rows = rowsOf<{ source: string; event_type: string; failed: number; dead: number; sampled: boolean }>(
    await db.execute(sql`
      with f as materialized (${newest("failed")}), d as materialized (${newest("dead")})
      select source, event_type, sum(failed)::int as failed, sum(dead)::int as dead,
             (select count(*) from f) > ${FAILING_SAMPLE} or (select count(*) from d) > ${FAILING_SAMPLE} as sampled
      from (select source, event_type, 1 as failed, 0 as dead from f
            union all
            select source, event_type, 0, 1 from d) x
      group by 1, 2 order by count(*) desc, 2 limit ${limit}`),
  );
  return rows.map((r) => ({
    source: r.source,
    eventType: r.event_type,
    failed: Number(r.failed),
    dead: Number(r.dead),
    ...(r.sampled ? { approximate: true as const } : {}),
  }));
}

export interface DeadEvent {
  source: string;
  eventId: string;
  eventType: string;
  attempts: number;
  lastError: string | null;
  receivedAt: Date;
}

/** Past this many, the dead count reads "1,000+": counting a pile of a hundred thousand costs a second. */
export const DEAD_COUNT_CAP = 1000;

export async function listDeadEvents(
  db: Db,
  actor: Actor | undefined,
  limit = 10,
): Promise<{ rows: DeadEvent[]; total: number; more: boolean }> {
  authorize(actor, "events.read");
  // Two statements: a window count would fetch every dead row from the heap to show ten; the count is capped.
  const [rows, [total]] = await Promise.all([
    db.execute(sql`
      select source, event_id, event_type, attempts, last_error, received_at::text as received_text
      from webhook_event where status = 'dead' order by received_at desc, event_id desc, source desc limit ${limit}`),
    db.execute(
      sql`select count(*)::int as n from (select 1 from webhook_event where status = 'dead' limit ${DEAD_COUNT_CAP + 1}) capped`,
    ),
  ]).then(
    ([r, t]) =>
      [
        rowsOf<{
          source: string;
          event_id: string;
          event_type: string;
          attempts: number;
          last_error: string | null;
          received_text: string;
        }>(r),
        rowsOf<{ n: number }>(t),
      ] as const,
  );
  const n = Number(total?.n ?? 0);
  return {
    total: Math.min(n, DEAD_COUNT_CAP),
    more: n > DEAD_COUNT_CAP,
    rows: rows.map((r) => ({
      source: r.source,
      eventId: r.event_id,
      eventType: r.event_type,
      attempts: r.attempts,
      lastError: r.last_error,
      receivedAt: new Date(r.received_text),
    })),
  };
}
