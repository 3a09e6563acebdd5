import { sql } from "drizzle-orm";
import { rowsOf, setLocalTimeouts, type Db, type Tx } from "@/db/client";
import type { AttemptOutcome } from "@/db/schema";
import { describeError, isRetryableConflict, sqlState } from "@/lib/errors";
import { entityTransition } from "@/db/schema";
import { applyEvent, type Applied } from "@/lib/handlers/dispatch";
import type { HandlerLookup } from "@/lib/handlers/registry";
import { HandlerInputError } from "@/lib/handlers/types";
import { backoffSql, failStatusSql } from "./lease";
import { pgArray } from "./pg-array";
import type { EventKey, LeasedEvent, RetryPolicy } from "./types";

export interface ProcessContext {
  policy: RetryPolicy;
  handlers: HandlerLookup;
  log?: (message: string) => void;
  /** The batch transaction's statement bound (longer than the pool's); unset keeps the pool's. */
  statementTimeoutMs?: number;
}

export type ProcessOutcome = AttemptOutcome | "dead" | "lease-lost";
export interface Processed extends EventKey {
  outcome: ProcessOutcome;
  error?: string;
}

const keyOf = (e: EventKey) => `${e.source}\u0000${e.eventId}`;

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
        return await db.transaction((tx) => applyAndSettle(tx, events, ctx));
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
      out.push(...(await db.transaction((tx) => applyAndSettle(tx, [event], ctx))));
    } catch (err) {
      out.push(await recordFailure(db, event, err, ctx));
    }
  }
  return out;
}

async function applyAndSettle(tx: Tx, events: readonly LeasedEvent[], ctx: ProcessContext): Promise<Processed[]> {
  if (ctx.statementTimeoutMs) await setLocalTimeouts(tx, { statementTimeoutMs: ctx.statementTimeoutMs });
  // Fence: lock the rows whose lease is still ours. A worker that lost its lease finds nothing here
  // and writes nothing; once locked, no reaper or other worker can take them until we commit.
  const owned = new Set(
    rowsOf<{ source: string; event_id: string }>(
      await tx.execute(sql`
        select e.source, e.event_id from webhook_event e
        join unnest(${pgArray(
          events.map((e) => e.source),
          "text",
        )}, ${pgArray(
          events.map((e) => e.eventId),
          "text",
        )},
                    ${pgArray(
                      events.map((e) => e.leaseToken),
                      "uuid",
                    )}) as v(source, event_id, token)
          on e.source = v.source and e.event_id = v.event_id
        where e.lease_token = v.token and e.status = 'processing'
        for update of e`),
    ).map((r) => `${r.source}\u0000${r.event_id}`),
  );
  const mine = events.filter((e) => owned.has(keyOf(e)));
  const applied = await applyPipelined(tx, mine, ctx);
  const done = mine.map((event, i) => ({ event, ...applied[i]! }));
  const outcomeOf = new Map(done.map((d) => [d.event, d.outcome]));
  const results: Processed[] = events.map((event) => ({
    source: event.source,
    eventId: event.eventId,
    outcome: outcomeOf.get(event) ?? "lease-lost",
  }));
  if (done.length > 0) await settleMany(tx, done);
  return results;
}

/**
 * Applies events concurrently inside the one transaction, so the driver pipelines their statements
 * instead of waiting a round trip for each. Events of one entity still run one after another (each
 * timeline diff reads the previous write); allSettled makes sure nothing is in flight when we fail.
 */
async function applyPipelined(tx: Tx, events: readonly LeasedEvent[], ctx: ProcessContext): Promise<Applied[]> {
  const outcomes: Applied[] = new Array<Applied>(events.length);
  const chains = new Map<string, number[]>();
  events.forEach((e, i) => {
    const key = chainKey(e, ctx.handlers);
    chains.set(key, [...(chains.get(key) ?? []), i]);
  });
  // Chains start in key order, so concurrent batches take the handlers' row locks in one order (no deadlock).
  const ordered = [...chains.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, chain]) => chain);
  const settled = await Promise.allSettled(
    ordered.map(async (chain) => {
      for (const i of chain) outcomes[i] = await applyEvent(tx, events[i]!, ctx.handlers);
    }),
  );
  const failures = settled
    .filter((r): r is PromiseRejectedResult => r.status === "rejected")
    .map((r) => r.reason as unknown);
  // After the first error every later statement fails with 25P02 (transaction aborted): report the cause.
  if (failures.length > 0) throw failures.find((e) => sqlState(e) !== "25P02") ?? failures[0];
  return outcomes;
}

/**
 * The row a handler locks is the entity its `read` names (a delta on invoice.paid locks the customer's
 * total, not the invoice the ledger filed it under), so chains are keyed by that. Events no handler
 * takes, or whose payload the handler cannot read, lock nothing and form chains of their own.
 */
function chainKey(e: LeasedEvent, handlers: HandlerLookup): string {
  try {
    const handler = handlers(e.source, e.eventType);
    if (!handler) return `event:${keyOf(e)}`;
    const { entity } = handler.read(e);
    return `${e.source}\u0000${entity.type}\u0000${entity.id}`;
  } catch {
    return `event:${keyOf(e)}`;
  }
}

type Done = Applied & { event: LeasedEvent };

/** Appends the batch's timeline rows, settles its ledger rows and appends their attempt rows: two statements. */
async function settleMany(tx: Tx, done: readonly Done[]): Promise<void> {
  const transitions = done.flatMap((d) => (d.transition ? [d.transition] : []));
  if (transitions.length > 0) await tx.insert(entityTransition).values(transitions);
  const col = <T extends string | number | null>(f: (d: Done) => T) => done.map(f);
  await tx.execute(sql`
    with v as (
      select * from unnest(${pgArray(
        col((d) => d.event.source),
        "text",
      )}, ${pgArray(
        col((d) => d.event.eventId),
        "text",
      )},
        ${pgArray(
          col((d) => d.event.attempt),
          "int",
        )}, ${pgArray(
          col((d) => d.event.trigger),
          "text",
        )},
        ${pgArray(
          col((d) => d.event.actor),
          "text",
        )}, ${pgArray(
          col((d) => d.event.leasedAt.toISOString()),
          "timestamptz",
        )},
        ${pgArray(
          col((d) => d.outcome),
          "text",
        )}) as v(source, event_id, number, trigger, actor, started_at, outcome)
    ), settled as (
      update webhook_event e set status = 'settled', settled_at = clock_timestamp(), last_error = null,
        lease_token = null, lease_expires_at = null, next_trigger = 'auto', next_actor = null
      from v where e.source = v.source and e.event_id = v.event_id
    )
    insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
    select source, event_id, number, trigger, actor, started_at, clock_timestamp(), outcome from v`);
}

/** Records a failed attempt, fenced on the lease: failed with backoff, or dead when the budget is spent. */
async function recordFailure(db: Db, event: LeasedEvent, err: unknown, ctx: ProcessContext): Promise<Processed> {
  const reason = err instanceof HandlerInputError ? err.message : describeError(err);
  const message = (event.intakeNote ? `${reason} (at intake: ${event.intakeNote})` : reason).slice(0, 2000);
  const key = { source: event.source, eventId: event.eventId };
  try {
    const [row] = rowsOf<{ status: "failed" | "dead" }>(
      await db.execute(sql`
        with upd as (
          update webhook_event e set status = ${failStatusSql(ctx.policy)}, last_error = ${message},
            next_attempt_at = ${backoffSql(ctx.policy)}, lease_token = null, lease_expires_at = null,
            next_trigger = 'auto', next_actor = null
          where e.source = ${event.source} and e.event_id = ${event.eventId}
            and e.lease_token = ${event.leaseToken} and e.status = 'processing'
          returning e.status
        ), attempt as (
          insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error)
          select ${event.source}, ${event.eventId}, ${event.attempt}, ${event.trigger}, ${event.actor},
                 ${event.leasedAt.toISOString()}::timestamptz, clock_timestamp(), 'failed', ${message}
          from upd
        )
        select status from upd`),
    );
    if (!row) return { ...key, outcome: "lease-lost", error: message };
    return { ...key, outcome: row.status === "dead" ? "dead" : "failed", error: message };
  } catch (recordErr) {
    // The database is gone too: the lease will expire and the reaper will count this attempt.
    ctx.log?.(`could not record failure of ${event.source}/${event.eventId}: ${describeError(recordErr)}`);
    return { ...key, outcome: "failed", error: message };
  }
}
