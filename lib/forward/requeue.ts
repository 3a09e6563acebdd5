import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import { SOURCE_SLUG } from "@/db/schema/sources";
import type { ForwardStatus } from "@/db/schema/forward";
import { audited } from "@/lib/audit/audited";
import { authorize } from "@/lib/roles";
import { ConflictError, NotFoundError, parseInput } from "@/lib/errors";
import { plural } from "@/lib/format/words";
import { DestinationName, lockDestination, type ForwardContext } from "./manage";

/** One bulk requeue touches at most this many forwards; a bigger pile is requeued in turns. */
export const FORWARD_REQUEUE_MAX = 10_000;
const REQUEUEABLE = ["failed", "dead", "superseded"] as const;

export const ForwardKeyInput = z.object({
  destination: DestinationName,
  source: z.string().regex(SOURCE_SLUG, "a source slug"),
  eventId: z.string().min(1).max(255),
});
export type ForwardKeyInput = z.input<typeof ForwardKeyInput>;

/** Back to pending, due now, with a fresh attempt budget (its attempt rows stay). */
const RESET = sql`status = 'pending', attempts = 0, next_attempt_at = now(), lease_token = null, lease_expires_at = null`;

/**
 * In newest mode a forward waits behind the newer states of its entity: one that has been queued or sent (its
 * row, or the guard's version where the row is gone) means this older state would overwrite what the team
 * has. `f` names the forward row being judged.
 */
const newerState = (f: SQL) => sql`
  select g.event_id, g.status, g.entity_version::text as version from forward g
  where g.destination = ${f}.destination and g.entity_key = ${f}.entity_key
    and g.entity_version > ${f}.entity_version and g.status in ('pending', 'sending', 'failed', 'sent', 'dead')
  union all
  select e.event_id, 'queued', e.version::text from forward_entity e
  where e.destination = ${f}.destination and e.entity_key = ${f}.entity_key and e.version > ${f}.entity_version`;

interface ForwardRow {
  id: string;
  status: ForwardStatus;
  entity_key: string | null;
  entity_version: string | null;
  mode: "every" | "newest";
}

/**
 * One failed, dead or superseded forward → pending (ops). In newest mode it is refused when a newer state of
 * its entity has been queued or sent to that destination: requeue that one instead.
 */
export async function requeueForward(ctx: ForwardContext, input: ForwardKeyInput): Promise<{ status: "pending" }> {
  const target = `forward:${String(input.destination ?? "").slice(0, 64)}/${String(input.source ?? "")}/${String(input.eventId ?? "").slice(0, 255)}`;
  return audited(
    ctx.db,
    ctx.actor,
    "forwards.requeue",
    { action: "forwards.requeue", target },
    async (tx, _who, current) => {
      const k = parseInput(ForwardKeyInput, input);
      const [f] = rowsOf<ForwardRow>(
        await tx.execute(sql`
          select f.id::text as id, f.status, f.entity_key, f.entity_version::text as entity_version, d.mode
          from forward f join forward_destination d on d.name = f.destination
          where f.destination = ${k.destination} and f.source = ${k.source} and f.event_id = ${k.eventId}
          for update of f`),
      );
      if (!f) throw new NotFoundError(`event ${k.source}/${k.eventId} has no forward to "${k.destination}"`);
      if (!(REQUEUEABLE as readonly string[]).includes(f.status))
        throw new ConflictError(
          `the forward to "${k.destination}" is ${f.status}; only failed, dead or superseded forwards can be requeued`,
        );
      if (f.mode === "newest" && f.entity_key !== null && f.entity_version !== null) {
        const [newer] = rowsOf<{ event_id: string; status: string; version: string }>(
          await tx.execute(sql`
            select n.event_id, n.status, n.version from forward f, lateral (${newerState(sql.raw("f"))}) n
            where f.id = ${f.id}
            order by n.version::bigint desc limit 1`),
        );
        if (newer)
          throw new ConflictError(
            `a newer state of this entity (version ${newer.version}, event ${newer.event_id}, ${newer.status}) ` +
              `has already gone to "${k.destination}" or waits for it: newest mode never sends an older state after it`,
          );
      }
      await tx.execute(sql`update forward set ${RESET} where id = ${f.id}`);
      current.target = `forward:${k.destination}/${k.source}/${k.eventId}`;
      current.detail = { from: f.status };
      return { status: "pending" as const };
    },
  );
}

export const RequeueStatuses = z
  .array(z.enum(["failed", "dead"]))
  .min(1, "Choose failed, dead or both")
  .transform((v) => [...new Set(v)]);

export const CountRequeueableInput = z.object({ destination: DestinationName, statuses: RequeueStatuses });
export type CountRequeueableInput = z.input<typeof CountRequeueableInput>;

export const RequeueForwardsInput = CountRequeueableInput.extend({
  /** The count the person confirmed; the requeue refuses to touch more than that. */
  confirmed: z.number().int().min(1).max(FORWARD_REQUEUE_MAX),
});
export type RequeueForwardsInput = z.input<typeof RequeueForwardsInput>;

/** A destination's failed/dead forwards a bulk requeue takes: in newest mode, not those a newer state overtook. */
function requeueableWhere(destination: string, statuses: readonly string[]): SQL {
  return sql`
    f.destination = ${destination} and f.status = any(${pgArray(statuses, "text")})
    and not (d.mode = 'newest' and f.entity_key is not null and f.entity_version is not null
             and exists (${newerState(sql.raw("f"))}))`;
}

/**
 * How many forwards a bulk requeue would take: the number ops confirm first. Counted up to
 * FORWARD_REQUEUE_MAX + 1 only; a result above FORWARD_REQUEUE_MAX means "more than that".
 */
export async function countRequeueableForwards(ctx: ForwardContext, input: CountRequeueableInput): Promise<number> {
  authorize(ctx.actor, "forwards.requeue");
  const i = parseInput(CountRequeueableInput, input);
  return countWhere(ctx.db, i.destination, i.statuses);
}

async function countWhere(db: Db | Tx, destination: string, statuses: readonly string[]): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`
      select count(*)::int as n from (
        select 1 from forward f join forward_destination d on d.name = f.destination
        where ${requeueableWhere(destination, statuses)}
        limit ${FORWARD_REQUEUE_MAX + 1}
      ) c`),
  );
  return Number(row?.n ?? 0);
}

/**
 * A destination's failed and/or dead forwards → pending, with fresh attempt budgets (ops). All or nothing: when
 * more match now than were confirmed, nothing changes and the person counts again. Confirming the bound itself
 * (the count said "more than FORWARD_REQUEUE_MAX") takes that many, oldest first, and the rest wait for a next turn.
 */
export async function requeueForwards(ctx: ForwardContext, input: RequeueForwardsInput): Promise<{ requeued: number }> {
  const entry = {
    action: "forwards.requeue-bulk",
    target: `destination:${String(input.destination ?? "").slice(0, 64)}`,
  };
  return audited(ctx.db, ctx.actor, "forwards.requeue", entry, async (tx, _who, current) => {
    const i = parseInput(RequeueForwardsInput, input);
    const bounded = i.confirmed === FORWARD_REQUEUE_MAX;
    await lockDestination(tx, i.destination, { lock: false });
    const [row] = rowsOf<{ n: number }>(
      await tx.execute(sql`
        with picked as (
          select f.id from forward f join forward_destination d on d.name = f.destination
          where ${requeueableWhere(i.destination, i.statuses)}
          order by f.id
          limit ${bounded ? i.confirmed : i.confirmed + 1}
          for update of f skip locked
        ), moved as (
          update forward f set ${RESET} from picked where f.id = picked.id
          returning 1
        ) select count(*)::int as n from moved`),
    );
    const n = Number(row?.n ?? 0);
    if (n > i.confirmed)
      throw new ConflictError(
        `more than the ${plural(i.confirmed, "forward")} you confirmed match now; count again before requeueing`,
      );
    current.detail = { statuses: i.statuses, confirmed: i.confirmed, requeued: n };
    return { requeued: n };
  });
}
