import { sql } from "drizzle-orm";
import { rowsOf, type Tx } from "@/db/client";
import { type entityTransition } from "@/db/schema";
import type { HandlerLookup } from "./registry";
import type { DeltaHandler, HandlerEvent, SnapshotHandler } from "./types";

export type ApplyOutcome = "settled" | "stale" | "ignored";
export type TransitionRow = typeof entityTransition.$inferInsert;
/** The outcome, and the timeline row to append (written in bulk with the batch's settle). */
export interface Applied {
  outcome: ApplyOutcome;
  transition?: TransitionRow;
}

/**
 * Runs the event's handler inside `tx`. Snapshot handlers pass the version guard first: the
 * entity_version upsert moves only forward and row-locks the entity until commit, so two workers
 * applying versions of one entity serialise and the newest wins whatever the arrival order.
 */
export async function applyEvent(tx: Tx, event: HandlerEvent, handlers: HandlerLookup): Promise<Applied> {
  const handler = handlers(event.source, event.eventType);
  if (!handler) return { outcome: "ignored" };
  return handler.kind === "snapshot" ? applySnapshot(tx, handler, event) : applyDelta(tx, handler, event);
}

async function applySnapshot<S>(tx: Tx, handler: SnapshotHandler<S>, event: HandlerEvent): Promise<Applied> {
  const { entity, state } = handler.read(event);
  const key = sql`source = ${event.source} and entity_type = ${entity.type} and entity_id = ${entity.id}`;
  const [guard] = rowsOf<{ applied: boolean; current: string | number | null; current_event: string | null }>(
    await tx.execute(sql`
      with up as (
        insert into entity_version (source, entity_type, entity_id, version, event_id)
        values (${event.source}, ${entity.type}, ${entity.id}, ${entity.version}, ${event.eventId})
        on conflict (source, entity_type, entity_id) do update
          set version = excluded.version, event_id = excluded.event_id, updated_at = now()
          where entity_version.version < excluded.version
        returning 1
      )
      select exists (select 1 from up) as applied,
             (select version from entity_version where ${key}) as current,
             (select event_id from entity_version where ${key}) as current_event`),
  );
  const base = {
    source: event.source,
    entityType: entity.type,
    entityId: entity.id,
    eventId: event.eventId,
    version: entity.version,
  };
  if (guard?.applied) {
    const changes = await handler.write(tx, state, { entity, event });
    return { outcome: "settled", transition: { ...base, outcome: "applied", changes } };
  }
  const current = Number(guard?.current);
  const note =
    current === entity.version
      ? `tie: version ${entity.version} equals the applied version (event ${guard?.current_event}); equal versions are stale by rule`
      : `older: version ${entity.version} < applied version ${current} (event ${guard?.current_event})`;
  return { outcome: "stale", transition: { ...base, outcome: "stale", changes: {}, note } };
}

async function applyDelta<I>(tx: Tx, handler: DeltaHandler<I>, event: HandlerEvent): Promise<Applied> {
  const { entity, input } = handler.read(event);
  const changes = await handler.apply(tx, input, { event });
  return {
    outcome: "settled",
    transition: {
      source: event.source,
      entityType: entity.type,
      entityId: entity.id,
      eventId: event.eventId,
      version: null,
      outcome: "applied",
      changes,
      note: "delta",
    },
  };
}
