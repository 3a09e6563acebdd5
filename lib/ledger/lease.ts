import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import type { AttemptTrigger } from "@/db/schema";
import { payloadOf } from "@/db/payload";
import { keyedTo } from "./keyed";
import type { EventKey, LeasedEvent, RetryPolicy } from "./types";

interface LeaseRow {
  source: string;
  event_id: string;
  event_type: string;
  payload: unknown;
  raw_body: string | null;
  attempts: number;
  attempts_base: number;
  lease_token: string;
  leased_at: string | Date;
  next_trigger: AttemptTrigger;
  next_actor: string | null;
  intake_note: string | null;
  subject_ids: string[] | null;
  test: boolean | null;
}

// The raw body only where no jsonb copy is stored (db/payload.ts): one of the two crosses the wire.
// The lease writes only the narrow state row (e); the body (b) is read beside it, never rewritten.
const RETURNING = sql`returning e.source, e.event_id, e.event_type, b.payload,
  case when b.payload is null then b.raw_body end as raw_body, e.attempts, e.attempts_base,
  e.lease_token, e.leased_at, e.next_trigger, e.next_actor, b.intake_note, b.subject_ids, b.test`;
const BODY = sql`webhook_event_body b`;
const BODY_OF_E = sql`b.source = e.source and b.event_id = e.event_id`;

function toLeased(row: LeaseRow, workerId: string): LeasedEvent {
  return {
    source: row.source,
    eventId: row.event_id,
    eventType: row.event_type,
    payload: payloadOf({ payload: row.payload, rawBody: row.raw_body }),
    attempt: Number(row.attempts),
    attemptsBase: Number(row.attempts_base),
    leaseToken: row.lease_token,
    leasedAt: new Date(row.leased_at),
    trigger: row.next_trigger,
    actor: row.next_actor ?? workerId,
    intakeNote: row.intake_note ?? undefined,
    subjectIds: row.subject_ids ?? [],
    ...(row.test ? { test: true } : {}),
  };
}

/** The lease itself; committed on its own so a crash mid-handler is visible and counted. */
function leaseSet(workerId: string, leaseMs: number): SQL {
  return sql`status = 'processing', attempts = e.attempts + 1, lease_token = gen_random_uuid(),
    leased_at = now(), leased_by = ${workerId}, lease_expires_at = now() + ${leaseMs} * interval '1 millisecond'`;
}

/**
 * Lease up to `limit` due events, oldest due first; or (`liveWithinMs`) only those that became due in the
 * last `liveWithinMs`, newest first (then handed over oldest first): the worker's live lane, so a fresh
 * delivery is not queued behind a whole backlog. Bounded to a recent range of the pending index, the lane never
 * walks the backlog itself. SKIP LOCKED lets several workers take disjoint batches from the pending partial index
 * without waiting.
 */
export async function leaseDue(
  db: Db,
  opts: { workerId: string; leaseMs: number; limit: number; liveWithinMs?: number },
): Promise<LeasedEvent[]> {
  return rowsOf<LeaseRow>(await db.execute(leaseDueSql(opts))).map((r) => toLeased(r, opts.workerId));
}

/** leaseDue's statement (exported for its plan test). */
export function leaseDueSql(opts: { workerId: string; leaseMs: number; limit: number; liveWithinMs?: number }): SQL {
  const live = opts.liveWithinMs
    ? sql`and next_attempt_at >= now() - ${opts.liveWithinMs} * interval '1 millisecond'
      order by next_attempt_at desc`
    : sql`order by next_attempt_at`;
  // The update returns rows in whatever order its plan reads them (by key, here); the batch is handed over
  // oldest due first in either lane, because the version guard weighs a batch in the order it gets it.
  return sql`
    with due as (
      select source, event_id, next_attempt_at from webhook_event_state
      where status in ('claimed', 'failed') and next_attempt_at <= now() ${live}
      limit ${opts.limit}
      for update skip locked
    ), leased as (
      update webhook_event_state e set ${leaseSet(opts.workerId, opts.leaseMs)}
      from due, ${BODY} where ${keyedTo("due")} and ${BODY_OF_E}
      ${RETURNING}, due.next_attempt_at as due_at
    )
    select * from leased order by due_at, source, event_id`;
}

/**
 * Lease one named event now, whatever its due time: "process now" and the shadow re-run.
 * `statuses` says which states may be taken (a person may push a dead event).
 */
export async function leaseOne(
  db: Db,
  key: EventKey,
  opts: {
    workerId: string;
    leaseMs: number;
    statuses: readonly ("claimed" | "failed" | "dead")[];
    trigger?: AttemptTrigger;
    actor?: string;
  },
): Promise<LeasedEvent | undefined> {
  const override = opts.trigger ? sql`, next_trigger = ${opts.trigger}, next_actor = ${opts.actor ?? null}` : sql``;
  const fresh = opts.statuses.includes("dead")
    ? sql`, attempts_base = case when e.status = 'dead' then e.attempts else e.attempts_base end`
    : sql``;
  const result = await db.execute(sql`
    update webhook_event_state e set ${leaseSet(opts.workerId, opts.leaseMs)} ${override} ${fresh}
    from ${BODY}
    where e.source = ${key.source} and e.event_id = ${key.eventId} and ${BODY_OF_E}
      and e.status in (${sql.join(
        opts.statuses.map((s) => sql`${s}`),
        sql`, `,
      )})
    ${RETURNING}`);
  const row = rowsOf<LeaseRow>(result)[0];
  return row ? toLeased(row, opts.workerId) : undefined;
}

/** Full jitter: uniform in [0, min(cap, base · 2^(n−1))], n = attempts since the budget restarted. */
export function backoffSql(policy: RetryPolicy): SQL {
  return sql`now() + random() * least(${policy.backoffMaxMs}::float8,
    ${policy.backoffBaseMs}::float8 * power(2, least(greatest(e.attempts - e.attempts_base - 1, 0), 40))) * interval '1 millisecond'`;
}

/** failed, or dead once the attempt budget is spent. */
export function failStatusSql(policy: RetryPolicy): SQL {
  return sql`case when e.attempts - e.attempts_base >= ${policy.maxAttempts} then 'dead' else 'failed' end`;
}

/**
 * Take back leases whose worker died or stalled: the attempt is recorded as failed (a crash is an
 * attempt too), so an event that keeps killing its worker ends dead instead of looping forever.
 */
export async function reapExpiredLeases(db: Db, policy: RetryPolicy): Promise<EventKey[]> {
  const result = await db.execute(sql`
    with expired as (
      select source, event_id, next_trigger, next_actor from webhook_event_state
      where status = 'processing' and lease_expires_at < now()
      for update skip locked
    ), reaped as (
      update webhook_event_state e set status = ${failStatusSql(policy)},
        last_error = 'lease expired: the worker stopped or stalled before settling', outcome = 'failed',
        next_attempt_at = ${backoffSql(policy)},
        lease_token = null, lease_expires_at = null, next_trigger = 'auto', next_actor = null
      from expired where e.source = expired.source and e.event_id = expired.event_id
      returning e.source, e.event_id, e.attempts, e.leased_at, expired.next_trigger as trigger,
        coalesce(expired.next_actor, e.leased_by, 'worker') as actor
    )
    insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error)
    select source, event_id, attempts, trigger, actor, leased_at, now(), 'failed',
           'lease expired: the worker stopped or stalled before settling'
    from reaped
    returning source, event_id`);
  return rowsOf<{ source: EventKey["source"]; event_id: string }>(result).map((r) => ({
    source: r.source,
    eventId: r.event_id,
  }));
}
