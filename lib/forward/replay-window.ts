import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Tx } from "@/db/client";
import { pgArray, pgArrays } from "@/db/pg-array";
import type { ForwardStatus } from "@/db/schema/forward";
import { audited } from "@/lib/audit/audited";
import { ConflictError, NotFoundError, parseInput } from "@/lib/errors";
import { listDestinations, type Destination } from "./destinations";
import { weighForwards, type ForwardRow, type SettledForForward } from "./enqueue";
import { DestinationName, type ForwardContext } from "./manage";

/** Events one replay queues at most: past it the replay stops and says where to start the next one. */
export const REPLAY_WINDOW_MAX = 50_000;
/** Events weighed and written per statement: a large window goes in steps inside its one transaction. */
const STEP = 5_000;

export const ReplayWindowInput = z
  .object({ destination: DestinationName, from: z.coerce.date(), to: z.coerce.date() })
  .refine((w) => w.from.getTime() < w.to.getTime(), {
    message: "The window's end must be after its start",
    path: ["to"],
  });
export type ReplayWindowInput = z.input<typeof ReplayWindowInput>;

export interface ReplayWindowResult {
  destination: string;
  /** Settled events in the window that match the destination's filters (up to REPLAY_WINDOW_MAX). */
  matched: number;
  /** New rows in the outbox, pending. */
  queued: number;
  /** Rows that were there (sent, failed, dead …) and are pending again, with the same webhook-id. */
  reset: number;
  /** newest mode: new rows that say why they are not sent (stale, tie, superseded). */
  notForwarded: number;
  /** Left as they are: already pending or in flight, or (newest mode) not newer than what the destination has. */
  unchanged: number;
  /** More events matched than one replay takes: the next replay starts at `resumeFrom`. */
  cut: boolean;
  resumeFrom?: Date;
}

/** A type filter's glob (`*` for any run) as a LIKE pattern, so the window is filtered in the database. */
export function typeLikePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll("*", "%");
}

interface WindowEvent {
  source: string;
  event_id: string;
  event_type: string;
  received_at: string | Date;
  guard: "applied" | "stale" | "tie" | null;
}

async function windowEvents(tx: Tx, d: Destination, from: Date, to: Date): Promise<WindowEvent[]> {
  // The guard's verdict on each event is its timeline row's outcome: what the settle passed to the outbox.
  const guard =
    d.mode === "newest"
      ? sql`(select t.outcome from webhook_event_body b
             join entity_transition t on t.source = b.source and t.entity_type = b.entity_type
               and t.entity_id = b.entity_id and t.event_id = b.event_id
             where b.source = s.source and b.event_id = s.event_id
             order by t.id desc limit 1)`
      : sql`null`;
  return rowsOf<WindowEvent>(
    await tx.execute(sql`
      select s.source, s.event_id, s.event_type, s.received_at, ${guard} as guard
      from webhook_event_state s
      where s.received_at >= ${from.toISOString()}::timestamptz and s.received_at < ${to.toISOString()}::timestamptz
        and s.status = 'settled' and s.resolution is null
        ${d.sources ? sql`and s.source = any(${pgArray(d.sources, "text")})` : sql``}
        ${d.types ? sql`and s.event_type like any(${pgArray(d.types.map(typeLikePattern), "text")})` : sql``}
      order by s.received_at, s.source, s.event_id
      limit ${REPLAY_WINDOW_MAX + 1}`),
  );
}

/**
 * Writes one step's rows in received order (`ord` spaces their due times a microsecond apart, so the forwarder
 * takes them in that order). A new row is inserted as weighed; a row already there is pending again only when
 * the weighing says pending and it is not pending or in flight now. Its webhook-id, derived from the destination
 * and the event, is the one the team saw before, so their side deduplicates a copy it already has.
 */
async function writeStep(tx: Tx, rows: readonly (ForwardRow & { ord: number })[]) {
  if (rows.length === 0) return [];
  return rowsOf<{ inserted: boolean; status: ForwardStatus }>(
    await tx.execute(sql`
      insert into forward (destination, source, event_id, entity_key, entity_version, status, next_attempt_at)
      select v.destination, v.source, v.event_id, v.entity_key, v.entity_version, v.status,
        now() + v.ord * interval '1 microsecond'
      from unnest(${pgArrays([
        [rows.map((r) => r.destination), "text"],
        [rows.map((r) => r.source), "text"],
        [rows.map((r) => r.eventId), "text"],
        [rows.map((r) => r.entityKey), "text"],
        [rows.map((r) => r.version), "bigint"],
        [rows.map((r) => r.status), "text"],
        [rows.map((r) => r.ord), "int"],
      ])}) as v(destination, source, event_id, entity_key, entity_version, status, ord)
      on conflict (destination, source, event_id) do update set status = 'pending', attempts = 0,
        next_attempt_at = excluded.next_attempt_at, lease_token = null, lease_expires_at = null,
        entity_key = excluded.entity_key, entity_version = excluded.entity_version
      where excluded.status = 'pending' and forward.status not in ('pending', 'sending')
      returning (xmax = 0) as inserted, status`),
  );
}

/**
 * Replays a time window to one destination (ops): every settled event received in [from, to) that matches its
 * filters goes into the outbox in received order, through the settle's own weighing (./enqueue.ts), so newest
 * mode sends only what is newer than the version the destination has. Bounded by REPLAY_WINDOW_MAX.
 */
export async function replayWindow(ctx: ForwardContext, input: ReplayWindowInput): Promise<ReplayWindowResult> {
  const entry = {
    action: "forwards.replay",
    target: `destination:${String(input.destination ?? "").slice(0, 64)}`,
  };
  return audited(ctx.db, ctx.actor, "forwards.replay", entry, async (tx, _who, current) => {
    const i = parseInput(ReplayWindowInput, input);
    const d = (await listDestinations(tx)).find((x) => x.name === i.destination);
    if (!d) throw new NotFoundError(`no destination "${i.destination}"`);
    if (d.state === "disabled")
      throw new ConflictError(`destination "${d.name}" is disabled: enable it (or pause it) before replaying to it`);
    const found = await windowEvents(tx, d, i.from, i.to);
    const cut = found.length > REPLAY_WINDOW_MAX;
    const events = found.slice(0, REPLAY_WINDOW_MAX);
    const result: ReplayWindowResult = {
      destination: d.name,
      matched: events.length,
      queued: 0,
      reset: 0,
      notForwarded: 0,
      unchanged: 0,
      cut,
      resumeFrom: cut ? new Date(found[REPLAY_WINDOW_MAX]!.received_at) : undefined,
    };
    for (let at = 0; at < events.length; at += STEP) {
      const step = events.slice(at, at + STEP);
      const ord = new Map(step.map((e, n) => [`${e.source}\u0000${e.event_id}`, at + n]));
      const pairs = step.map((e) => ({
        d,
        e: {
          source: e.source,
          eventId: e.event_id,
          eventType: e.event_type,
          guard: e.guard ?? undefined,
        } satisfies SettledForForward,
      }));
      const weighed = await weighForwards(tx, pairs);
      const written = await writeStep(
        tx,
        weighed.map((r) => ({ ...r, ord: ord.get(`${r.source}\u0000${r.eventId}`)! })),
      );
      for (const w of written)
        if (!w.inserted) result.reset++;
        else if (w.status === "pending") result.queued++;
        else result.notForwarded++;
    }
    result.unchanged = result.matched - result.queued - result.reset - result.notForwarded;
    current.detail = {
      from: i.from.toISOString(),
      to: i.to.toISOString(),
      matched: result.matched,
      queued: result.queued,
      reset: result.reset,
      cut,
    };
    return result;
  });
}
