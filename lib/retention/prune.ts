import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { daysAgo, pauseAfter, type RetentionSettings } from "./settings";

export interface PruneCounts {
  events: number;
  deliveries: number;
  attempts: number;
  transitions: number;
  tombstones: number;
  replayRuns: number;
  auditRows: number;
  batches: number;
}
export const noCounts = (): PruneCounts => ({
  events: 0,
  deliveries: 0,
  attempts: 0,
  transitions: 0,
  tombstones: 0,
  replayRuns: 0,
  auditRows: 0,
  batches: 0,
});

/** Where the walk of the settled range stands: received_at as PostgreSQL's own text (microseconds), id, source. */
type Cursor = [at: string, eventId: string, source: string];

/** Settled events received and settled more than `days` ago by the database's clock (`alias` names the row). */
const prunable = (days: number, alias: string) =>
  sql`${sql.raw(alias)}.status = 'settled' and ${sql.raw(alias)}.received_at < ${daysAgo(days)}
      and coalesce(${sql.raw(alias)}.settled_at, ${sql.raw(alias)}.received_at) < ${daysAgo(days)}`;

/** The tombstones of the next batch of prunable events, committed; returns the batch's keys and that commit's xid. */
async function writeTombstones(db: Db, days: number, cursor: Cursor | undefined, limit: number) {
  const after = cursor
    ? sql`and (received_at, event_id, source) > (${cursor[0]}::timestamptz, ${cursor[1]}, ${cursor[2]})`
    : sql``;
  return rowsOf<{ source: string; event_id: string; at: string; xid: string }>(
    await db.execute(sql`
      with victims as (
        select source, event_id, received_at, body_sha256, body_is_key, body_scope
        from webhook_event e
        where ${prunable(days, "e")}
          ${after}
        order by received_at, event_id, source
        limit ${limit}
      ), tombstone as (
        insert into webhook_tombstone (source, event_id, received_at, body_sha256, body_key, body_scope)
        -- The body key keeps its scope, so a pruned Shopify topic still never drops another (lib/intake/claim.ts).
        select source, event_id, received_at, decode(body_sha256, 'hex'),
               body_sha256 is not null and coalesce(body_is_key, false), body_scope
        from victims
        order by source, event_id
        on conflict (source, event_id) do nothing
      )
      select source, event_id, received_at::text as at, pg_current_xact_id()::text as xid
      from victims
      order by received_at, event_id, source`),
  );
}

/**
 * Wait until no client backend holds a snapshot taken before transaction `xid` committed (what CREATE INDEX
 * CONCURRENTLY waits for). A claim whose snapshot predates the tombstones saw the event row alive; one taken
 * after sees the tombstone. Deleting the row only once the first kind is gone leaves no claim seeing neither.
 * A snapshot is older when its xmin is not past `xid`; ages are compared, which wraparound cannot confuse.
 */
async function waitForOlderSnapshots(db: Db, xid: string, waitMs: number, signal?: AbortSignal): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (let delay = 1; ; delay = Math.min(delay * 2, 100)) {
    const [row] = rowsOf<{ n: number }>(
      await db.execute(sql`
        select count(*)::int as n
        from pg_stat_activity
        where datname = current_database()
          and pid <> pg_backend_pid()
          and backend_type = 'client backend'
          and backend_xmin is not null
          and age(backend_xmin) >= age(${xid}::xid8::xid)`),
    );
    if (!row?.n) return true;
    if (Date.now() > until || signal?.aborted) return false;
    await sleep(delay);
  }
}

/** A CTE of deleteEvents: the victims' rows in `table`, each table keyed by (source, event_id), deleted. */
const deleteVictims = (table: string) =>
  sql`delete from ${sql.identifier(table)} x
      using victims v
      where x.source = v.source and x.event_id = v.event_id
      returning 1`;

/**
 * Delete the batch's events still prunable (a requeue may have settled one again since) and not locked, with their
 * deliveries, attempts and timeline rows.
 */
async function deleteEvents(db: Db, days: number, keys: { source: string; event_id: string }[]) {
  const [row] = rowsOf<Omit<PruneCounts, "tombstones" | "replayRuns" | "auditRows" | "batches">>(
    await db.execute(sql`
      with victims as (
        select e.source, e.event_id
        from webhook_event_state e
        join json_to_recordset(${JSON.stringify(keys)}::text::json) as k(source text, event_id text)
          on e.source = k.source and e.event_id = k.event_id
        where ${prunable(days, "e")}
        for update of e skip locked
      ),
      deliveries as (${deleteVictims("webhook_delivery")}),
      attempts as (${deleteVictims("webhook_attempt")}),
      transitions as (${deleteVictims("entity_transition")}),
      events as (${deleteVictims("webhook_event_state")}),
      bodies as (${deleteVictims("webhook_event_body")})
      select (select count(*)::int from events) as events, (select count(*)::int from deliveries) as deliveries,
             (select count(*)::int from attempts) as attempts, (select count(*)::int from transitions) as transitions`),
  );
  return row ?? { events: 0, deliveries: 0, attempts: 0, transitions: 0 };
}

export class SnapshotWaitError extends Error {
  override name = "SnapshotWaitError";
}

/**
 * Prune settled events received (and settled) more than `s.retentionDays` ago, oldest first, a batch at a time: tombstones in
 * one statement, then the rows in another, each its own short transaction. Keyset-walks the status index, so a
 * batch never rescans what earlier ones deleted. Failed and dead events are never touched; a settled row a
 * worker or a requeue holds is skipped (its tombstone stays, which changes nothing: the event still exists).
 */
export async function pruneSettledEvents(
  db: Db,
  s: RetentionSettings,
  opts: { signal?: AbortSignal; onBatch?: (counts: PruneCounts) => Promise<void> | void } = {},
): Promise<PruneCounts> {
  const total = noCounts();
  let cursor: Cursor | undefined;
  let analyzedAt = 0;
  while (!opts.signal?.aborted) {
    const started = performance.now();
    const batch = await writeTombstones(db, s.retentionDays, cursor, s.batchSize);
    const last = batch[batch.length - 1];
    if (!last) break;
    if (!(await waitForOlderSnapshots(db, last.xid, s.snapshotWaitMs, opts.signal))) {
      if (opts.signal?.aborted) break;
      throw new SnapshotWaitError(
        `a snapshot older than the batch's tombstones was still open after ${s.snapshotWaitMs} ms (a long transaction?); ` +
          "its events keep their rows until the next run",
      );
    }
    const done = await deleteEvents(db, s.retentionDays, batch);
    total.events += done.events;
    total.deliveries += done.deliveries;
    total.attempts += done.attempts;
    total.transitions += done.transitions;
    total.batches += 1;
    cursor = [last.at, last.event_id, last.source];
    // The claim's plan probes tombstones by index only if the planner knows the table is not tiny, and a
    // prepared plan is made again only after an ANALYZE: refresh the statistics as the table grows.
    if (total.events >= analyzedAt * 2) {
      await db.execute(sql`analyze webhook_tombstone`);
      analyzedAt = Math.max(total.events, 1);
    }
    const batchMs = performance.now() - started;
    await opts.onBatch?.(total);
    if (batch.length < s.batchSize) break;
    const pause = pauseAfter(s, batchMs);
    if (pause > 0) await sleep(pause);
  }
  return total;
}

/** Delete rows matching `where` from a table, `limit` at a time by `key`, until none is left; returns the count. */
async function deleteInBatches(
  db: Db,
  table: "webhook_tombstone" | "replay_run" | "audit_log",
  key: "ctid" | "id",
  where: ReturnType<typeof sql>,
  limit: number,
  signal?: AbortSignal,
): Promise<number> {
  let n = 0;
  while (!signal?.aborted) {
    const [row] = rowsOf<{ n: number }>(
      await db.execute(sql`
        with gone as (
          delete from ${sql.identifier(table)}
          where ${sql.raw(key)} = any(array(select ${sql.raw(key)} from ${sql.identifier(table)} where ${where} limit ${limit}))
          returning 1
        )
        select count(*)::int as n from gone`),
    );
    n += row?.n ?? 0;
    if ((row?.n ?? 0) < limit) break;
  }
  return n;
}

export const pruneTombstones = (db: Db, days: number, limit: number, signal?: AbortSignal) =>
  deleteInBatches(db, "webhook_tombstone", "ctid", sql`received_at < ${daysAgo(days)}`, limit, signal);

/** Finished runs only: a running one (even a stale one) is the resumer's, not retention's. */
export const pruneReplayRuns = (db: Db, days: number, limit: number, signal?: AbortSignal) =>
  deleteInBatches(
    db,
    "replay_run",
    "id",
    sql`status <> 'running' and coalesce(finished_at, started_at) < ${daysAgo(days)}`,
    limit,
    signal,
  );

export const pruneAuditLog = (db: Db, days: number, limit: number, signal?: AbortSignal) =>
  deleteInBatches(db, "audit_log", "id", sql`at < ${daysAgo(days)}`, limit, signal);
