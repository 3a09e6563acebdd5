import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import type { AttemptOutcome, EventResolution, EventStatus, TieResolution } from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";
import { SOURCE_SLUG } from "@/db/schema/sources";
import { readEntityStates } from "./entity-state";

export const EntityKeyInput = z.object({
  source: z.string().regex(SOURCE_SLUG),
  entityType: z.string().min(1).max(255),
  entityId: z.string().min(1).max(255),
});
export type EntityKeyInput = z.infer<typeof EntityKeyInput>;

export interface TimelineEntry {
  eventId: string;
  /** null: the event was pruned by retention (its timeline row outlives it) or erased. */
  eventType: string | null;
  /** false when the ledger no longer holds the event row (retention or erasure). */
  inLedger: boolean;
  eventStatus: EventStatus;
  /** The event's last outcome and a person's decision on it, for its status badge. */
  eventOutcome: AttemptOutcome | null;
  eventResolution: EventResolution | null;
  receivedAt: Date;
  /** The version the event carried (the provider's ordering key: unix seconds, or microseconds from ISO times). */
  version: number | null;
  /**
   * applied / stale / tie once the worker has weighed it against this entity; pending while it has not;
   * elsewhere: it settled without a row for this entity (it moved another one, or had nothing to apply).
   */
  outcome: "applied" | "stale" | "tie" | "pending" | "elsewhere";
  /** For equal versions: how the order was decided (chain evidence, the provider's API, a person). */
  resolution: TieResolution | null;
  /** What was applied before this one was weighed. */
  priorVersion: number | null;
  priorEventId: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  note: string | null;
  recordedAt: Date | null;
  /** For an `elsewhere` entry: the entities its timeline rows moved instead. */
  moved: { entityType: string; entityId: string }[];
}

export interface EntityTimeline {
  source: string;
  entityType: string;
  entityId: string;
  /** The newest version applied (the guard), if a versioned event has been applied. */
  current: { version: number; eventId: string; updatedAt: Date } | undefined;
  /**
   * The newest applied timeline row, versioned or not: a delta entity (a customer's totals) has no version
   * guard, yet its events are applied, once each by event id.
   */
  lastApplied: { eventId: string; recordedAt: Date; versioned: boolean } | undefined;
  /** The business row the handlers keep for it (subscription, order, customer totals), as stored now, money in units. */
  state: Record<string, unknown> | undefined;
  /** Every business row kept for it (a customer's totals: one per currency). */
  states: Record<string, unknown>[];
  /** A handler keeps a business table for this entity type (else the timeline is all there is). */
  tracked: boolean;
  entries: TimelineEntry[];
}

type Row = {
  event_id: string;
  event_type: string | null;
  in_ledger: boolean;
  status: EventStatus | null;
  event_outcome: AttemptOutcome | null;
  event_resolution: EventResolution | null;
  received_at: string | null;
  version: string | null;
  outcome: "applied" | "stale" | "tie" | null;
  resolution: TieResolution | null;
  prior_version: string | null;
  prior_event_id: string | null;
  changes: Record<string, { from: unknown; to: unknown }> | null;
  note: string | null;
  recorded_at: string | null;
  moved: { entityType: string; entityId: string }[] | null;
};

/**
 * Every event that tried to move one entity, newest first: the timeline rows written for it (whichever
 * entity the event itself names: an invoice moves its customer's totals), each with its event looked up by
 * primary key, and the events that name it but wrote no row for it (still waiting, or settled elsewhere).
 */
export async function getEntityTimeline(
  db: Db,
  actor: Actor | undefined,
  input: EntityKeyInput,
  limit = 500,
): Promise<EntityTimeline> {
  authorize(actor, "events.read");
  const k = EntityKeyInput.parse(input);
  const rows = rowsOf<Row>(
    await db.execute(sql`
      with t as (
        select * from entity_transition
        where source = ${k.source} and entity_type = ${k.entityType} and entity_id = ${k.entityId}
        order by id desc
        limit ${limit}
      )
      select u.event_id, u.event_type, u.in_ledger, u.status, u.event_outcome, u.event_resolution,
             u.received::text as received_at, u.version::text, u.outcome, u.resolution,
             u.prior_version::text, u.prior_event_id, u.changes, u.note, u.recorded::text as recorded_at, u.moved
      from (
        select t.id, t.event_id, e.event_type, e.event_id is not null as in_ledger, e.status,
               e.outcome as event_outcome, e.resolution as event_resolution, e.received_at as received,
               t.version, t.outcome, t.resolution, t.prior_version, t.prior_event_id, t.changes, t.note,
               t.recorded_at as recorded, null::jsonb as moved
        from t
        left join webhook_event e on e.source = t.source and e.event_id = t.event_id
        union all
        select null, e.event_id, e.event_type, true, e.status, e.outcome, e.resolution, e.received_at,
               e.entity_version, null, null, null, null, null, null, null,
               (select jsonb_agg(jsonb_build_object('entityType', x.entity_type, 'entityId', x.entity_id) order by x.id)
                from entity_transition x
                where x.source = e.source and x.event_id = e.event_id)
        from webhook_event e
        where e.source = ${k.source} and e.entity_type = ${k.entityType} and e.entity_id = ${k.entityId}
          and not exists (select 1 from entity_transition x
                          where x.source = e.source and x.event_id = e.event_id
                            and x.entity_type = ${k.entityType} and x.entity_id = ${k.entityId})
      ) u
      order by coalesce(u.recorded, u.received) desc, u.version desc nulls last, u.id desc nulls last
      limit ${limit}`),
  );
  const [current] = rowsOf<{ version: string; event_id: string; updated_at: string }>(
    await db.execute(sql`select version::text, event_id, updated_at::text from entity_version
                         where source = ${k.source} and entity_type = ${k.entityType} and entity_id = ${k.entityId}`),
  );
  const kept = await readEntityStates(db, k);
  const states = kept ?? [];
  const entries = rows.map((r): TimelineEntry => ({
    eventId: r.event_id,
    eventType: r.event_type,
    inLedger: r.in_ledger,
    eventStatus: r.status ?? "settled",
    eventOutcome: r.event_outcome,
    eventResolution: r.event_resolution,
    receivedAt: new Date(r.received_at ?? r.recorded_at ?? 0),
    version: r.version === null ? null : Number(r.version),
    outcome: r.outcome ?? (r.status === "settled" ? "elsewhere" : "pending"),
    resolution: r.resolution,
    priorVersion: r.prior_version === null ? null : Number(r.prior_version),
    priorEventId: r.prior_event_id,
    changes: r.changes ?? {},
    note: r.note,
    recordedAt: r.recorded_at ? new Date(r.recorded_at) : null,
    moved: r.moved ?? [],
  }));
  const applied = entries.find((e) => e.outcome === "applied");
  return {
    ...k,
    current: current
      ? { version: Number(current.version), eventId: current.event_id, updatedAt: new Date(current.updated_at) }
      : undefined,
    lastApplied: applied?.recordedAt
      ? { eventId: applied.eventId, recordedAt: applied.recordedAt, versioned: applied.version !== null }
      : undefined,
    state: states[0],
    states,
    tracked: kept !== undefined,
    entries,
  };
}
