import { sql, type SQL } from "drizzle-orm";
import { rowsOf, setLocalTimeouts, type Db, type Tx } from "@/db/client";
import type { AttemptOutcome } from "@/db/schema";
import { describeError, isDataError, isRetryableConflict } from "@/lib/errors";
import type { ErrorKind } from "@/db/schema";
import { applyBatch, type Applied, type NotApplied, type ProviderApi } from "@/lib/handlers/dispatch";
import type { HandlerLookup } from "@/lib/handlers/registry";
import { HandlerInputError } from "@/lib/handlers/types";
import { backoffSql, failStatusSql } from "./lease";
import { pgArray, pgArrays } from "@/db/pg-array";
import { enqueueForwards } from "@/lib/forward/enqueue";
import { recordSubjectTerms } from "./subject-terms";
import { insertTransitions } from "./transition-insert";
import { keyOf, type EventKey, type LeasedEvent, type RetryPolicy } from "./types";

export interface ProcessContext {
  policy: RetryPolicy;
  handlers: HandlerLookup;
  /** The provider's API for ties nothing else can order (lib/handlers/provider-api.ts); absent: none. */
  providerApi?: ProviderApi;
  log?: (message: string) => void;
  /** The batch transaction's statement bound (longer than the pool's); unset keeps the pool's. */
  statementTimeoutMs?: number;
  /** Told once a batch that queued forwards has committed (the forwarder wakes instead of waiting its poll). */
  forwardsQueued?: () => void;
}

export type ProcessOutcome = AttemptOutcome | "dead" | "lease-lost";
export interface Processed extends EventKey {
  outcome: ProcessOutcome;
  error?: string;
  /** Failed attempts: whether a retry can help (permanent ones go dead at once). */
  errorKind?: ErrorKind;
}

/**
 * Apply and settle leased events. The happy path is one transaction for the whole batch (one commit
 * instead of one per event); if any handler throws, that transaction rolls back and each event is
 * retried alone, so one poison event costs its neighbours a retry, never a lost or doubled effect.
 */
export async function processLeased(db: Db, events: readonly LeasedEvent[], ctx: ProcessContext): Promise<Processed[]> {
  if (events.length === 0) return [];
  if (events.length > 1) {
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        return await recordAfter(db, await db.transaction((tx) => applyAndSettle(tx, events, ctx)), ctx);
      } catch (err) {
        // A deadlock or serialization failure says nothing about the events: run the batch again once.
        const transient = isRetryableConflict(err);
        ctx.log?.(
          `batch of ${events.length} rolled back (${describeError(err)}); ${transient && attempt === 1 ? "retrying the batch" : "retrying one by one"}`,
        );
        if (!transient) break;
      }
    }
  }
  const out: Processed[] = [];
  for (const event of events) {
    try {
      out.push(...(await recordAfter(db, await db.transaction((tx) => applyAndSettle(tx, [event], ctx)), ctx)));
    } catch (err) {
      out.push(await recordFailure(db, event, err, ctx));
    }
  }
  return out;
}

/** A batch's result: settled events, and events that failed alone (recorded once the batch has committed). */
interface BatchResult {
  processed: Processed[];
  failures: { event: LeasedEvent; error: unknown; index: number }[];
  /** What to do once the batch has committed (wake the forwarder for the forwards it queued). */
  committed: () => void;
}

/** The failures' attempts are written after the commit: until then the fence holds their rows. */
async function recordAfter(db: Db, result: BatchResult, ctx: ProcessContext): Promise<Processed[]> {
  result.committed();
  const out = [...result.processed];
  for (const f of result.failures) out[f.index] = await recordFailure(db, f.event, f.error, ctx);
  return out;
}

/**
 * The fence, first in every batch: lock the rows whose lease is still ours. A worker that lost its lease finds
 * nothing here and writes nothing; once locked, no reaper or other worker can take them until we commit. Only the
 * narrow state rows: the body was read by the lease and is never rewritten. Each row is found by its primary key:
 * `status || ''` keeps the planner off the status and lease indexes, whose 'processing' range holds an entry for
 * every lease since the last vacuum, which a cached plan priced on stale statistics would walk per batch. Exported
 * for its plan test.
 */
export function fenceSql(events: readonly Pick<LeasedEvent, "source" | "eventId" | "leaseToken">[]): SQL {
  return sql`
    select f.source, f.event_id, f.row_id
    from unnest(${pgArrays([
      [events.map((e) => e.source), "text"],
      [events.map((e) => e.eventId), "text"],
      [events.map((e) => e.leaseToken), "uuid"],
    ])}) as v(source, event_id, token)
    -- One primary-key probe per event (LATERAL: joined plainly, a batch of 250 hashed the whole table, ./keyed.ts).
    cross join lateral (
      select e.source, e.event_id, e.ctid::text as row_id from webhook_event_state e
      where e.source = v.source and e.event_id = v.event_id and e.lease_token = v.token and e.status || '' = 'processing'
      for update
    ) f`;
}

/** The fenced rows' tuple ids, by event key: the events whose lease is still ours. */
async function fence(tx: Tx, events: readonly LeasedEvent[]): Promise<Map<string, string>> {
  const rows = rowsOf<{ source: string; event_id: string; row_id: string }>(await tx.execute(fenceSql(events)));
  return new Map(rows.map((r) => [keyOf({ source: r.source, eventId: r.event_id }), r.row_id]));
}

async function applyAndSettle(tx: Tx, events: readonly LeasedEvent[], ctx: ProcessContext): Promise<BatchResult> {
  if (ctx.statementTimeoutMs) await setLocalTimeouts(tx, { statementTimeoutMs: ctx.statementTimeoutMs });
  // Locked by this transaction until it commits, a fenced row cannot move before the settle finds it by tuple id.
  const rowIds = await fence(tx, events);
  const mine = events.filter((e) => rowIds.has(keyOf(e)));
  const applied = await applyBatch(tx, mine, ctx);
  const done: Done[] = [];
  const failed = new Map<LeasedEvent, unknown>();
  mine.forEach((event, i) => {
    const a = applied[i]!;
    if ("error" in a) failed.set(event, (a as NotApplied).error);
    else done.push({ event, ...a });
  });
  const outcomeOf = new Map(done.map((d) => [d.event, d.outcome]));
  const processed: Processed[] = events.map((event) => ({
    source: event.source,
    eventId: event.eventId,
    outcome: outcomeOf.get(event) ?? "lease-lost",
  }));
  let committed = () => {};
  if (done.length > 0) {
    await settleMany(tx, done, rowIds);
    // The search directory commits with the settle, written after the fence locked each row and found its lease
    // (the rule in ./subject-terms.ts): off the claim path, once per event.
    await recordSubjectTerms(
      tx,
      done.map((d) => ({ payload: d.event.payload, subjectIds: d.event.subjectIds })),
    );
    // The outbox commits with the settle: a forward exists exactly when its event settled (lib/forward).
    const queued = await enqueueForwards(
      tx,
      done.map((d) => ({
        source: d.event.source,
        eventId: d.event.eventId,
        eventType: d.event.eventType,
        guard: d.transition?.outcome,
      })),
    );
    committed = () => {
      if (queued > 0) ctx.forwardsQueued?.();
    };
  }
  const failures = events.flatMap((event, index) =>
    failed.has(event) ? [{ event, error: failed.get(event), index }] : [],
  );
  return { processed, failures, committed };
}

type Done = Applied & { event: LeasedEvent };

/**
 * Appends the batch's timeline rows, settles its ledger rows and appends their attempt rows: two statements. The
 * settle finds each row by the tuple id the fence locked (`rowIds`, by event key) and its outcome in a map by that
 * id, so no plan can join the batch to the table: joined by key, a small table was hashed whole per batch, and a
 * cached plan that took the batch for a few rows matched each key against each row. The id array is built at run
 * time so the planner cannot price the tuple fetches as reads from disk and scan instead.
 */
async function settleMany(tx: Tx, done: readonly Done[], rowIds: ReadonlyMap<string, string>): Promise<void> {
  const transitions = done.flatMap((d) => (d.transition ? [d.transition] : []));
  await insertTransitions(tx, transitions);
  await tx.execute(settleSql(done, rowIds));
}

/** settleMany's settle and attempts statement (exported for its plan test). */
export function settleSql(done: readonly Pick<Done, "event" | "outcome">[], rowIds: ReadonlyMap<string, string>): SQL {
  const col = (f: (d: Pick<Done, "event" | "outcome">) => string | number | null) => done.map(f);
  const rows = done.map((d) => rowIds.get(keyOf(d.event))!);
  const outcomes = Object.fromEntries(done.map((d, i) => [rows[i], d.outcome]));
  return sql`
    with v as (
      select * from unnest(${pgArrays([
        [col((d) => d.event.source), "text"],
        [col((d) => d.event.eventId), "text"],
        [col((d) => d.event.attempt), "int"],
        [col((d) => d.event.trigger), "text"],
        [col((d) => d.event.actor), "text"],
        [col((d) => d.event.leasedAt.toISOString()), "timestamptz"],
        [col((d) => d.outcome), "text"],
      ])}) as v(source, event_id, number, trigger, actor, started_at, outcome)
    ), settled as (
      update webhook_event_state e set status = 'settled', settled_at = clock_timestamp(), last_error = null,
        outcome = ${JSON.stringify(outcomes)}::jsonb ->> e.ctid::text, lease_token = null, lease_expires_at = null,
        next_trigger = 'auto', next_actor = null
      where e.ctid = any(array(select unnest(${pgArray(rows, "tid")})))
    )
    insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
    select source, event_id, number, trigger, actor, started_at, clock_timestamp(), outcome from v`;
}

/**
 * Whether retrying can help. Permanent: the payload lacks what its handler needs, or holds a value the
 * database refuses (SQLSTATE class 22/54); waiting changes neither. Everything else (a dropped
 * connection, a deadlock, a timeout, a bug that a deploy fixes) is transient and backs off.
 */
export function errorKindOf(err: unknown): ErrorKind {
  return err instanceof HandlerInputError || isDataError(err) ? "permanent" : "transient";
}

/** Records a failed attempt, fenced on the lease: failed with backoff, or dead when the budget is spent. */
async function recordFailure(db: Db, event: LeasedEvent, err: unknown, ctx: ProcessContext): Promise<Processed> {
  const kind = errorKindOf(err);
  const reason = err instanceof HandlerInputError ? err.message : describeError(err);
  const detail = err instanceof HandlerInputError ? JSON.stringify(err.detail) : null;
  const said = kind === "permanent" ? `permanent: ${reason}` : reason;
  const message = (event.intakeNote ? `${said} (at intake: ${event.intakeNote})` : said).slice(0, 2000);
  const key = { source: event.source, eventId: event.eventId };
  // A permanent failure is dead at once: the retry budget would only burn attempts that cannot succeed.
  const status = kind === "permanent" ? sql`'dead'` : failStatusSql(ctx.policy);
  try {
    return await db.transaction(async (tx) => {
      const [row] = rowsOf<{ status: "failed" | "dead" }>(
        await tx.execute(sql`
          with upd as (
            update webhook_event_state e set status = ${status}, last_error = ${message}, outcome = 'failed',
              next_attempt_at = ${backoffSql(ctx.policy)}, lease_token = null, lease_expires_at = null,
              next_trigger = 'auto', next_actor = null
            where e.source = ${event.source} and e.event_id = ${event.eventId}
              and e.lease_token = ${event.leaseToken} and e.status = 'processing'
            returning e.status
          ), attempt as (
            insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error,
                                         error_kind, error_detail)
            select ${event.source}, ${event.eventId}, ${event.attempt}, ${event.trigger}, ${event.actor},
                   ${event.leasedAt.toISOString()}::timestamptz, clock_timestamp(), 'failed', ${message}, ${kind},
                   ${detail}::jsonb
            from upd
          )
          select status from upd`),
      );
      if (!row) return { ...key, outcome: "lease-lost", error: message, errorKind: kind };
      // A failed or dead event is searched for too: its terms are written under the row lock the update took
      // (the rule in ./subject-terms.ts), in a savepoint so that a failed term write never loses the failure.
      await tx
        .transaction((sp) => recordSubjectTerms(sp, [{ payload: event.payload, subjectIds: event.subjectIds }]))
        .catch((termErr: unknown) =>
          ctx.log?.(`could not record search terms of ${event.source}/${event.eventId}: ${describeError(termErr)}`),
        );
      return { ...key, outcome: row.status === "dead" ? "dead" : "failed", error: message, errorKind: kind };
    });
  } catch (recordErr) {
    // The database is gone too: the lease will expire and the reaper will count this attempt.
    ctx.log?.(`could not record failure of ${event.source}/${event.eventId}: ${describeError(recordErr)}`);
    return { ...key, outcome: "failed", error: message, errorKind: kind };
  }
}
