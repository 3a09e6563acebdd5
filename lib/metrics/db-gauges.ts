import { sql, type SQL } from "drizzle-orm";
import { type EventStatus } from "@/db/schema/ledger";
import { withinDeadline } from "@/lib/errors";

/** Runs one statement on the main pool; rows as postgres.js (an array) or PGlite (`{ rows }`) return them. */
export type GaugeQuery = (query: SQL) => Promise<unknown>;

/** Below this many rows (pg_class's estimate) settled is counted exactly, as the overview page does. */
export const SETTLED_EXACT_BELOW = 200_000;
/** Dead events are counted exactly up to this many; past it, from the planner's statistics. */
export const DEAD_EXACT_CAP = 100_000;

/**
 * One statement, sized by the backlog, never by history: claimed and failed through the partial index
 * webhook_event_pending_idx (its predicate is exactly `status in ('claimed','failed')`), processing through
 * webhook_event_lease_idx (`status = 'processing'`) or the status index's processing range (an index-only
 * scan, which the planner often prefers), dead through the status index with a cap, and the table's size
 * from pg_class.reltuples (kept by autovacuum's ANALYZE). test/ops/gauges.test.ts checks the plan.
 */
/** Through the partial index of forwards not yet sent (forward_due_idx): sized by the backlog, never by history. */
const forwardBacklogSql = (): SQL => sql`
  select destination, count(*)::int as n from forward
  where status in ('pending', 'failed', 'sending')
  group by destination`;

export const backlogGaugesSql = (deadCap = DEAD_EXACT_CAP): SQL => sql`
  select
    (select reltuples::float8 from pg_class where oid = to_regclass('webhook_event_state')) as estimate,
    pending.claimed,
    pending.failed,
    leased.processing,
    dead.dead,
    extract(epoch from now() - least(pending.oldest, leased.oldest))::float8 as oldest_age,
    (select coalesce(jsonb_object_agg(destination, n), '{}'::jsonb) from (${forwardBacklogSql()}) f) as forwards
  from
    (select count(*) filter (where status = 'claimed')::int as claimed,
            count(*) filter (where status = 'failed')::int as failed,
            min(received_at) as oldest
       from webhook_event
      where status in ('claimed', 'failed')) pending,
    (select count(*)::int as processing, min(received_at) as oldest
       from webhook_event
      where status = 'processing') leased,
    (select count(*)::int as dead
       from (select 1 from webhook_event where status = 'dead' limit ${sql.raw(String(deadCap + 1))}) capped) dead`;

/** Only on a small table (estimate below SETTLED_EXACT_BELOW), and bounded even when the estimate is stale. */
export const settledCountSql = (below = SETTLED_EXACT_BELOW): SQL => sql`
  select count(*)::int as n
  from (select 1 from webhook_event where status = 'settled' limit ${sql.raw(String(below + 1))}) capped`;

/** The share of dead rows as ANALYZE sampled it: only when more are dead than DEAD_EXACT_CAP. */
export const deadFractionSql = (): SQL => sql`
  select coalesce(
    (select most_common_freqs[array_position(most_common_vals::text::text[], 'dead')]
       from pg_stats
      where schemaname = current_schema() and tablename = 'webhook_event_state' and attname = 'status'),
    0)::float8 as fraction`;

export interface DbGauges {
  events: Record<EventStatus, number>;
  /** settled (or dead, past its cap) is derived from the planner's estimate, not counted. */
  estimated: boolean;
  /** claimed + processing + failed: work the workers still owe. */
  backlog: number;
  /** Age of the oldest event in the backlog; 0 when it is empty. */
  oldestPendingSeconds: number;
  /** Forwards not yet sent (pending, failed and waiting, in flight) by destination (lib/forward). */
  forwardBacklog: Record<string, number>;
}

export interface DbGaugeReader {
  /** The gauges, from cache when read less than `ttlMs` ago (a failure is cached as long); throws if the query failed. */
  read(): Promise<DbGauges>;
}

export interface DbGaugeOptions {
  query: GaugeQuery;
  /** How long one query set answers every scrape (5 s). */
  ttlMs?: number;
  /** A scrape never waits longer on the database (2 s). */
  timeoutMs?: number;
  settledExactBelow?: number;
  deadCap?: number;
  now?: () => number;
  /** A query set failed (once per window; the scrapes then see webhook_db_gauges_ok 0). */
  onError?: (err: unknown) => void;
}

function firstRow(result: unknown): Record<string, unknown> {
  const rows = Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? []);
  return (rows[0] ?? {}) as Record<string, unknown>;
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

async function queryGauges(
  opts: Required<Pick<DbGaugeOptions, "query" | "settledExactBelow" | "deadCap">>,
): Promise<DbGauges> {
  const row = firstRow(await opts.query(backlogGaugesSql(opts.deadCap)));
  const estimate = num(row.estimate);
  const claimed = num(row.claimed);
  const failed = num(row.failed);
  const processing = num(row.processing);
  let dead = num(row.dead);
  let estimated = false;
  if (dead > opts.deadCap) {
    const fraction = num(firstRow(await opts.query(deadFractionSql())).fraction);
    dead = Math.max(opts.deadCap, Math.round(fraction * estimate));
    estimated = true;
  }
  const others = claimed + processing + failed + dead;
  let settled = Math.max(0, Math.round(estimate) - others);
  if (estimate < opts.settledExactBelow) {
    const counted = num(firstRow(await opts.query(settledCountSql(opts.settledExactBelow))).n);
    // Past the limit the estimate was stale: the count is a floor, the estimate may know better.
    if (counted > opts.settledExactBelow) estimated = true;
    settled = counted > opts.settledExactBelow ? Math.max(counted, settled) : counted;
  } else {
    estimated = true;
  }
  const forwards = (typeof row.forwards === "string" ? JSON.parse(row.forwards) : (row.forwards ?? {})) as Record<
    string,
    unknown
  >;
  const forwardBacklog = Object.fromEntries(Object.entries(forwards).map(([d, n]) => [d, num(n)]));
  return {
    forwardBacklog,
    events: { claimed, processing, settled, failed, dead },
    estimated,
    backlog: claimed + processing + failed,
    oldestPendingSeconds: Math.max(0, num(row.oldest_age)),
  };
}

/**
 * The ledger's gauges at a scrape's cost of one query set per `ttlMs`, however many scrapes arrive: the
 * first starts the query set, the others (meanwhile and until the window ends) share its answer.
 */
export function createDbGaugeReader(opts: DbGaugeOptions): DbGaugeReader {
  const ttlMs = opts.ttlMs ?? 5000;
  const timeoutMs = opts.timeoutMs ?? 2000;
  const now = opts.now ?? (() => performance.now());
  const inputs = {
    query: opts.query,
    settledExactBelow: opts.settledExactBelow ?? SETTLED_EXACT_BELOW,
    deadCap: opts.deadCap ?? DEAD_EXACT_CAP,
  };
  let cached: { at: number; gauges: Promise<DbGauges> } | undefined;
  return {
    read() {
      const t = now();
      if (!cached || t - cached.at >= ttlMs) {
        const gauges = withinDeadline(queryGauges(inputs), timeoutMs, "the ledger's gauges were not read");
        gauges.catch((err: unknown) => opts.onError?.(err)); // and the scrapes waiting on it read the failure
        cached = { at: t, gauges };
      }
      return cached.gauges;
    },
  };
}
