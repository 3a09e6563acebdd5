import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
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
    const rows = rowsOf<LeaseRow>(
      await tx.execute(sql`
        with budget as (
          select least(${limit}::int, ${d.maxInFlight}::int - count(*)::int) as n from forward
          where destination = ${d.name} and status = 'sending' and lease_expires_at > now()
        ), cand as (
          select f.id from forward f
          where f.destination = ${d.name} and f.status in ('pending', 'failed', 'sending') and f.next_attempt_at <= now()
            and (f.status <> 'sending' or f.lease_expires_at <= now())
            and (f.entity_key is null or not exists (
              select 1 from forward g
              where g.destination = f.destination and g.entity_key = f.entity_key and g.id <> f.id
                and g.status in ('pending', 'failed', 'sending', 'dead')
                and (g.id > f.id or g.status = 'sending' and g.lease_expires_at > now())))
          order by f.next_attempt_at, f.id
          limit (select greatest(n, 0) from budget)
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

/**
 * Writes an attempt's result, fenced on the lease: the attempt row, the forward's new state, the destination's
 * breaker. Sent: older forwards of its entity still waiting are superseded. Failed: retried after a backoff,
 * dead after the destination's maxAttempts, superseded when a newer state of its entity is queued. A run of
 * failures (429 aside: the destination is asking to slow down, not failing) opens the breaker.
 */
export async function recordResult(
  db: Db,
  d: Destination,
  f: LeasedForward,
  result: SendResult,
  startedAt: Date,
): Promise<RecordedAs> {
  const wait = backoffMs(f.attempt, result.retryAfterMs);
  const error = result.ok ? null : (result.error ?? "failed").slice(0, 500);
  const counts = !result.ok && result.status !== 429;
  // Each part below acts only once the fenced update has taken the row (`exists (select 1 from upd)`).
  const supersede =
    result.ok && f.entityKey !== null
      ? sql`, superseded as (
          update forward set status = 'superseded', lease_token = null, lease_expires_at = null
          where destination = ${d.name} and entity_key = ${f.entityKey} and id < ${f.id}
            and status in ('pending', 'failed', 'sending', 'dead') and exists (select 1 from upd)
        )`
      : sql``;
  const breaker = result.ok
    ? sql`, breaker as (
          update forward_destination set failures_in_row = 0, breaker_until = null, breaker_openings = 0
          where name = ${d.name} and (failures_in_row > 0 or breaker_until is not null) and exists (select 1 from upd)
        )`
    : counts
      ? sql`, breaker as (
          update forward_destination set failures_in_row = failures_in_row + 1,
            breaker_until = case when failures_in_row + 1 >= ${BREAKER_FAILURES} and ${OPENS}
              then now() + least(${BREAKER_BASE_MS} * power(2, breaker_openings), ${BREAKER_MAX_MS}) * interval '1 millisecond'
              else breaker_until end,
            breaker_openings = case when failures_in_row + 1 >= ${BREAKER_FAILURES} and ${OPENS} then breaker_openings + 1
              else breaker_openings end
          where name = ${d.name} and exists (select 1 from upd)
        )`
      : sql``;
  // One statement, so one round trip and no BEGIN/COMMIT of its own: its parts commit together.
  const [row] = rowsOf<{ status: RecordedAs }>(
    await db.execute(sql`
      with newer as (
        select exists (
          select 1 from forward g where g.destination = ${d.name} and g.entity_key = ${f.entityKey}
            and g.id > ${f.id} and g.status in ('pending', 'failed', 'sending', 'sent')
        ) as yes
      ), upd as (
        update forward f set
          status = case when ${result.ok} then 'sent'
                        when (select yes from newer) then 'superseded'
                        when f.attempts >= ${d.maxAttempts} then 'dead'
                        else 'failed' end,
          sent_at = case when ${result.ok} then now() else f.sent_at end,
          next_attempt_at = now() + ${wait} * interval '1 millisecond',
          last_error = ${error}, last_status = ${result.status ?? null},
          lease_token = null, lease_expires_at = null
        where f.id = ${f.id} and f.lease_token = ${f.leaseToken} and f.status = 'sending'
        returning f.status
      ), attempt as (
        insert into forward_attempt (forward_id, destination, number, started_at, duration_ms, status_code,
          response_excerpt, error)
        select ${f.id}, ${d.name}, ${f.attempt}, ${startedAt.toISOString()}::timestamptz, ${result.durationMs},
          ${result.status ?? null}, ${result.excerpt ?? null}, ${error}
        from upd
      )${supersede}${breaker}
      select status from upd`),
  );
  return row?.status ?? "lease-lost";
}
