import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { pgArrays } from "@/db/pg-array";
import type { Destination } from "./destinations";
import type { ForwardedEvent } from "./message";
import type { SendResult } from "./send";

/** A forward this process holds a lease on; `leaseToken` fences the write of its result. */
export interface LeasedForward extends ForwardedEvent {
  id: number;
  attempt: number;
  leaseToken: string;
  entityKey: string | null;
}

/** Past the request's own bound: a lease outlives the request it covers, so no two sends of one forward overlap. */
const LEASE_MARGIN_MS = 5000;
/** Failed attempts in a row that open a destination's breaker. */
export const BREAKER_FAILURES = 10;
/** The breaker's first pause; each reopening doubles it, up to BREAKER_MAX_MS. */
const BREAKER_BASE_MS = 30_000;
const BREAKER_MAX_MS = 30 * 60_000;
/** The breaker opens (again) only when it is not open now: a burst of failures already in flight opens it once. */
const OPENS = sql`(breaker_until is null or breaker_until <= now())`;
/** Backoff between attempts of one forward: full jitter over base·2^(n-1), capped. */
const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 60 * 60_000;

interface LeaseRow {
  id: string;
  source: string;
  event_id: string;
  attempts: number;
  lease_token: string;
  entity_key: string | null;
  event_type: string;
  received_at: string | Date;
  entity_type: string | null;
  entity_id: string | null;
  entity_version: string | null;
  raw_body: string;
  headers: Record<string, string>;
}

/** An event as a forward sends it, from the columns the lease reads. */
export function forwardedEventOf(
  r: Pick<
    LeaseRow,
    "source" | "event_id" | "event_type" | "received_at" | "entity_type" | "entity_id" | "entity_version" | "raw_body"
  > & { headers?: Record<string, string> },
  destination: string,
): ForwardedEvent {
  return {
    destination,
    source: r.source,
    eventId: r.event_id,
    eventType: r.event_type,
    receivedAt: new Date(r.received_at),
    entity:
      r.entity_type && r.entity_id
        ? { type: r.entity_type, id: r.entity_id, version: r.entity_version === null ? null : Number(r.entity_version) }
        : null,
    rawBody: r.raw_body,
    headers: r.headers ?? {},
  };
}

/**
 * Lease up to `limit` due forwards of one destination, and never more than its maxInFlight across every process:
 * the count of unexpired leases and the lease itself run under the destination's advisory lock. In newest mode an
 * entity has one forward in flight at most, and a forward is held while an older one of its entity is in flight
 * or a newer one is queued (that one goes instead, and this one is superseded when it is sent). A lease whose
 * holder died (expired) is taken again: the same forward, the same webhook-id. Candidates are one range of
 * forward_due_idx (a sending row's next_attempt_at is when it fell due, before its lease), read in order: the
 * OR of two status branches made PostgreSQL scan and sort the whole backlog, and JIT-compile that, on every lease.
 */
export async function leaseForwards(db: Db, d: Destination, limit: number): Promise<LeasedForward[]> {
  if (limit <= 0) return [];
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`forward:${d.name}`}, 0))`);
    // Counted in a statement of its own, after the lock, so that it sees the leases another process just took and
    // the breaker as the last recorded result left it (the caller's listing may predate both).
    const [state] = rowsOf<{ busy: number; open: boolean; half_open: boolean }>(
      await tx.execute(sql`
        select (select count(*)::int from forward
                where destination = ${d.name} and status = 'sending' and lease_expires_at > now()) as busy,
          coalesce(breaker_until > now(), false) as open, failures_in_row >= ${BREAKER_FAILURES} as half_open
        from forward_destination where name = ${d.name}`),
    );
    if (!state || state.open) return [];
    // Half-open: one probe at a time across every process, until its result is recorded (its lease is live till then).
    const n = Math.min(limit, (state.half_open ? 1 : d.maxInFlight) - state.busy);
    if (n <= 0) return [];
    // The limit is a literal: as a parameter or a subquery, PostgreSQL guessed a tenth of the backlog and joined
    // by hashing whole tables, a cost that grew with the backlog on every lease.
    const rows = rowsOf<LeaseRow>(
      await tx.execute(sql`
        with cand as (
          select f.id from forward f
          where f.destination = ${d.name} and f.status in ('pending', 'failed', 'sending') and f.next_attempt_at <= now()
            and (f.status <> 'sending' or f.lease_expires_at <= now())
            and (f.entity_key is null or not exists (
              select 1 from forward g
              where g.destination = f.destination and g.entity_key = f.entity_key and g.id <> f.id
                and g.status in ('pending', 'failed', 'sending', 'dead')
                and (g.id > f.id or g.status = 'sending' and g.lease_expires_at > now())))
          order by f.next_attempt_at, f.id
          limit ${sql.raw(String(Math.trunc(n)))}
          for update of f skip locked
        ), leased as (
          update forward f set status = 'sending', attempts = f.attempts + 1, lease_token = gen_random_uuid(),
            lease_expires_at = now() + ${d.timeoutMs + LEASE_MARGIN_MS} * interval '1 millisecond'
          from cand where f.id = cand.id
          returning f.id, f.source, f.event_id, f.attempts, f.lease_token, f.entity_key
        )
        select l.id::text as id, l.source, l.event_id, l.attempts, l.lease_token, l.entity_key, s.event_type,
          s.received_at, b.entity_type, b.entity_id, b.entity_version::text as entity_version, b.raw_body, b.headers
        from leased l
        join webhook_event_body b on b.source = l.source and b.event_id = l.event_id
        join webhook_event_state s on s.source = l.source and s.event_id = l.event_id
        order by l.id`),
    );
    return rows.map((r) => ({
      id: Number(r.id),
      ...forwardedEventOf(r, d.name),
      attempt: Number(r.attempts),
      leaseToken: r.lease_token,
      entityKey: r.entity_key,
    }));
  });
}

/** The wait before attempt `n + 1`: full jitter, or the destination's Retry-After when it said one. */
export function backoffMs(attempt: number, retryAfter: number | undefined, random = Math.random): number {
  if (retryAfter !== undefined) return retryAfter;
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export type RecordedAs = "sent" | "failed" | "dead" | "superseded" | "lease-lost";

/** One attempt's outcome, waiting to be written. */
export interface AttemptResult {
  f: LeasedForward;
  result: SendResult;
  startedAt: Date;
}

/**
 * Writes the results of a destination's attempts in one statement, each fenced on its lease: the attempt rows,
 * the forwards' new states, the destination's breaker. Sent: older forwards of its entity still waiting are
 * superseded. Failed: retried after a backoff, dead after the destination's maxAttempts, superseded when a newer
 * state of its entity is queued. A run of failures (429 aside: the destination is asking to slow down, not
 * failing) opens the breaker; a success closes it. Results are given in the order they finished, which is the
 * order the breaker counts them in. Batched because a commit per result was most of a forward's cost.
 */
export async function recordResults(db: Db, d: Destination, results: readonly AttemptResult[]): Promise<RecordedAs[]> {
  if (results.length === 0) return [];
  const cols = pgArrays([
    [results.map((r) => r.f.id), "bigint"],
    [results.map((r) => r.f.leaseToken), "uuid"],
    [results.map((r) => r.f.attempt), "int"],
    [results.map((r) => (r.result.ok ? 1 : 0)), "int"],
    [results.map((r) => backoffMs(r.f.attempt, r.result.retryAfterMs)), "int"],
    [results.map((r) => (r.result.ok ? null : (r.result.error ?? "failed").slice(0, 500))), "text"],
    [results.map((r) => r.result.status ?? null), "int"],
    [results.map((r) => r.result.excerpt ?? null), "text"],
    [results.map((r) => r.startedAt.toISOString()), "timestamptz"],
    [results.map((r) => Math.round(r.result.durationMs)), "int"],
  ]);
  // Each part below acts only on the rows the fenced update took (upd); one statement, so one round trip and one
  // commit. The breaker counts the failures after the last success of the batch (ord is the finishing order).
  const rows = rowsOf<{ id: string; status: RecordedAs }>(
    await db.execute(sql`
      with r as (
        select * from unnest(${cols}) with ordinality
          as r(id, token, attempt, ok, wait_ms, error, status_code, excerpt, started_at, duration_ms, ord)
      ), upd as (
        update forward f set
          status = case when r.ok = 1 then 'sent'
                        when exists (
                          select 1 from forward g where g.destination = f.destination and g.entity_key = f.entity_key
                            and g.id > f.id and g.status in ('pending', 'failed', 'sending', 'sent')) then 'superseded'
                        when f.attempts >= ${d.maxAttempts} then 'dead'
                        else 'failed' end,
          sent_at = case when r.ok = 1 then now() else f.sent_at end,
          next_attempt_at = now() + r.wait_ms * interval '1 millisecond',
          last_error = r.error, last_status = r.status_code,
          lease_token = null, lease_expires_at = null
        from r
        where f.id = r.id and f.lease_token = r.token and f.status = 'sending' and f.destination = ${d.name}
        returning f.id, f.status, f.entity_key, r.ok, r.status_code, r.ord
      ), attempt as (
        insert into forward_attempt (forward_id, destination, number, started_at, duration_ms, status_code,
          response_excerpt, error)
        select r.id, ${d.name}, r.attempt, r.started_at, r.duration_ms, r.status_code, r.excerpt, r.error
        from r join upd on upd.id = r.id
      ), superseded as (
        update forward f set status = 'superseded', lease_token = null, lease_expires_at = null
        from (select entity_key, max(id) as id from upd where status = 'sent' and entity_key is not null
              group by entity_key) s
        where f.destination = ${d.name} and f.entity_key = s.entity_key and f.id < s.id
          and f.status in ('pending', 'failed', 'sending', 'dead') and f.id not in (select id from upd)
      ), tally as (
        select bool_or(ok = 1) as any_ok,
          -- A failure counts toward the breaker unless it was a 429: the destination asked to slow down, it did not fail.
          count(*) filter (where ok = 0 and status_code is distinct from 429
            and ord > coalesce((select max(ord) from upd where ok = 1), 0))::int as fails
        from upd
      ), next as (
        select t.any_ok, case when t.any_ok then t.fails else d.failures_in_row + t.fails end as fails,
          case when t.any_ok then 0 else d.breaker_openings end as openings
        from tally t, forward_destination d where d.name = ${d.name}
      ), breaker as (
        update forward_destination d set failures_in_row = n.fails,
          breaker_until = case when n.fails >= ${BREAKER_FAILURES} and ${OPENS}
            then now() + least(${BREAKER_BASE_MS} * power(2, n.openings), ${BREAKER_MAX_MS}) * interval '1 millisecond'
            when n.any_ok then null else d.breaker_until end,
          breaker_openings = case when n.fails >= ${BREAKER_FAILURES} and ${OPENS} then n.openings + 1
            else n.openings end
        from next n
        where d.name = ${d.name} and (n.fails <> d.failures_in_row or n.any_ok and d.breaker_until is not null
          or n.openings <> d.breaker_openings)
      )
      select id::text as id, status from upd`),
  );
  const recorded = new Map(rows.map((r) => [Number(r.id), r.status]));
  return results.map((r) => recorded.get(r.f.id) ?? "lease-lost");
}
