import { and, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { planPerCall, rowsOf, type Db } from "@/db/client";
import { webhookEvent } from "@/db/schema";
import { audited } from "@/lib/audit/audited";
import { authorize, type Actor } from "@/lib/roles";
import { EventFilter, resolvedConditions } from "./event-filter";
import { FailureGroupKey, groupMembersCondition } from "./failure-groups";
import { ConflictError } from "@/lib/ledger/types";

/** One bulk requeue touches at most this many events; a bigger set wants a narrower filter. */
export const BULK_REQUEUE_MAX = 10_000;
const REQUEUEABLE = ["failed", "dead"] as const;

/** `group` narrows the filter to one failure group (lib/console/failure-groups.ts): its error kind and pattern. */
async function requeueableWhere(db: Db, filter: EventFilter, group?: FailureGroupKey) {
  const where = and(...(await resolvedConditions(db, filter)), inArray(webhookEvent.status, [...REQUEUEABLE]));
  return group ? and(where, await groupMembersCondition(db, where, group, BULK_REQUEUE_MAX + 1)) : where;
}

/**
 * How many failed/dead events the filter matches: the number ops confirm before the bulk requeue. Counted up
 * to BULK_REQUEUE_MAX + 1 only (more cannot be requeued at once), so a dead pile of a million costs what ten
 * thousand do; a result above BULK_REQUEUE_MAX means "more than that".
 */
export async function countRequeueable(
  db: Db,
  actor: Actor | undefined,
  filter: z.input<typeof EventFilter>,
  group?: FailureGroupKey,
): Promise<number> {
  authorize(actor, "events.requeue");
  const where = await requeueableWhere(db, EventFilter.parse(filter), group && FailureGroupKey.parse(group));
  const [row] = rowsOf<{ n: number }>(
    await db.execute(
      // Planned with the filter's values (planPerCall): which index reads fewest rows depends on them, and a cached
      // generic plan read a common type's whole index range and filtered the statuses off the heap.
      sql`${planPerCall}select count(*)::int as n from (select 1 from ${webhookEvent} where ${where} limit ${BULK_REQUEUE_MAX + 1}) c`,
    ),
  );
  return Number(row?.n ?? 0);
}

export const RequeueMatchingInput = z.object({
  filter: EventFilter,
  /** The count the person confirmed; the requeue refuses to touch more than that. */
  confirmed: z.number().int().min(1).max(BULK_REQUEUE_MAX),
  /** Only this failure group of the filter's events (requeue a group after its fix). */
  group: FailureGroupKey.optional(),
});

/**
 * Every failed/dead event the filter matches → claimed and due now, recorded as requeues by the actor.
 * All or nothing: if the set has grown past what was confirmed, nothing changes.
 */
export async function requeueMatching({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor | undefined;
  input: z.input<typeof RequeueMatchingInput>;
}): Promise<{ requeued: number }> {
  const { filter, confirmed, group } = RequeueMatchingInput.parse(input);
  return audited(
    db,
    actor,
    "events.requeue",
    { action: "events.requeue-bulk", target: "events", detail: { filter, confirmed, ...(group ? { group } : {}) } },
    async (tx, who, entry) => {
      const rows = rowsOf<{ n: number }>(
        await tx.execute(sql`${planPerCall}
        with matched as (
          select source, event_id from webhook_event where ${await requeueableWhere(tx, filter, group)}
          limit ${confirmed + 1}
        ), picked as (
          -- The lock is on the lifecycle row (the view cannot be locked through its outer join).
          select s.source, s.event_id from webhook_event_state s
          join matched m on s.source = m.source and s.event_id = m.event_id
          where s.status in ('failed', 'dead')
          for update of s skip locked
        ), moved as (
          update webhook_event_state e set status = 'claimed', next_attempt_at = now(), next_trigger = 'requeue',
                 next_actor = ${who.email}, attempts_base = e.attempts
          from picked where e.source = picked.source and e.event_id = picked.event_id
          returning 1
        ) select count(*)::int as n from moved`),
      );
      const n = Number(rows[0]?.n ?? 0);
      if (n > confirmed)
        throw new ConflictError(
          `more than the ${confirmed} events you confirmed match now; count again before requeueing`,
        );
      // The log says how many moved, not only how many were confirmed (the audit page reads it out).
      entry.detail = { ...entry.detail, requeued: n };
      return { requeued: n };
    },
  );
}
