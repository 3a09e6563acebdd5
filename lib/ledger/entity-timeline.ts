import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import type { EventStatus } from "@/db/schema";
import { authorize, type Actor } from "@/lib/auth/roles";
import { SOURCE_SLUG } from "@/db/schema/sources";

export const EntityKeyInput = z.object({
  source: z.string().regex(SOURCE_SLUG),
  entityType: z.string().min(1).max(255),
  entityId: z.string().min(1).max(255),
});
export type EntityKeyInput = z.infer<typeof EntityKeyInput>;

export interface TimelineEntry {
  eventId: string;
  eventType: string;
  eventStatus: EventStatus;
  receivedAt: Date;
  /** The version the event carried (the provider's ordering key). */
  version: number | null;
  /** applied / stale / tie once the worker has weighed it; pending while it has not. */
  outcome: "applied" | "stale" | "tie" | "pending";
  /** For equal versions: how the order was decided (chain evidence, the provider's API, a person). */
  resolution: "chain" | "provider-api" | "by-hand" | null;
  /** The event whose state was applied before this one was weighed. */
  priorEventId: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  note: string | null;
  recordedAt: Date | null;
}

export interface EntityTimeline {
  source: string;
  entityType: string;
  entityId: string;
  /** The newest version applied (the guard), if any event has been applied. */
  current: { version: number; eventId: string; updatedAt: Date } | undefined;
  /** The business row the handlers keep for it (subscription, order), as stored now. */
  state: Record<string, unknown> | undefined;
  entries: TimelineEntry[];
}

const STATE_TABLES: Record<string, string> = { subscription: "subscription", order: "order" };

/**
 * Every event that tried to move one entity, newest first: those the worker weighed (applied or
 * stale, with what changed) and those still waiting. The entity index serves both halves.
 */
export async function getEntityTimeline(
  db: Db,
  actor: Actor | undefined,
  input: EntityKeyInput,
  limit = 500,
): Promise<EntityTimeline> {
  authorize(actor, "events.read");
  const k = EntityKeyInput.parse(input);
  const rows = rowsOf<{
    event_id: string;
    event_type: string | null;
    status: EventStatus | null;
    received_at: string | null;
    version: string | null;
    outcome: "applied" | "stale" | "tie" | null;
    resolution: "chain" | "provider-api" | "by-hand" | null;
    prior_event_id: string | null;
    changes: Record<string, { from: unknown; to: unknown }> | null;
    note: string | null;
    recorded_at: string | null;
  }>(
    await db.execute(sql`
      select coalesce(t.event_id, e.event_id) as event_id, e.event_type, e.status, e.received_at::text,
             coalesce(t.version, e.entity_version)::text as version, t.outcome, t.resolution,
             t.prior_event_id, t.changes, t.note, t.recorded_at::text
      from (select * from entity_transition
            where source = ${k.source} and entity_type = ${k.entityType} and entity_id = ${k.entityId}) t
      full join (select * from webhook_event
            where source = ${k.source} and entity_type = ${k.entityType} and entity_id = ${k.entityId}) e
        on e.event_id = t.event_id
      order by coalesce(t.recorded_at, e.received_at) desc, coalesce(t.version, e.entity_version) desc nulls last
      limit ${limit}`),
  );
  const [current] = rowsOf<{ version: string; event_id: string; updated_at: string }>(
    await db.execute(sql`select version::text, event_id, updated_at::text from entity_version
                         where source = ${k.source} and entity_type = ${k.entityType} and entity_id = ${k.entityId}`),
  );
  // Own keys only: "constructor" or "__proto__" is an unknown type, not Object.prototype's member.
  const table = Object.hasOwn(STATE_TABLES, k.entityType) ? STATE_TABLES[k.entityType] : undefined;
  const state = table
    ? rowsOf<Record<string, unknown>>(
        await db.execute(
          sql`select * from ${sql.identifier(table)} where source = ${k.source} and external_id = ${k.entityId}`,
        ),
      )[0]
    : undefined;
  return {
    ...k,
    current: current
      ? { version: Number(current.version), eventId: current.event_id, updatedAt: new Date(current.updated_at) }
      : undefined,
    state,
    entries: rows.map((r) => ({
      eventId: r.event_id,
      eventType: r.event_type ?? "(event no longer in the ledger)",
      eventStatus: r.status ?? "settled",
      receivedAt: new Date(r.received_at ?? r.recorded_at ?? 0),
      version: r.version === null ? null : Number(r.version),
      outcome: r.outcome ?? "pending",
      resolution: r.resolution,
      priorEventId: r.prior_event_id,
      changes: r.changes ?? {},
      note: r.note,
      recordedAt: r.recorded_at ? new Date(r.recorded_at) : null,
    })),
  };
}
