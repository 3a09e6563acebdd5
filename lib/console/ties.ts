import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { entityTransition } from "@/db/schema";
import { audited } from "@/lib/audit/audited";
import { authorize, type Actor } from "@/lib/roles";
import { ConflictError, NotFoundError } from "@/lib/errors";
import type { HandlerLookup } from "@/lib/handlers/registry";
import { EventKeyInput } from "./requeue";
import { payloadSql } from "@/db/payload";

export interface OpenTie {
  source: string;
  entityType: string;
  entityId: string;
  /** The event that was not applied, and the one whose state was kept. */
  eventId: string;
  keptEventId: string | null;
  version: number | null;
  recordedAt: Date;
}

/**
 * Ties nothing could order and no person has decided yet, newest first: an unresolved tie whose event
 * was not applied by hand afterwards. The partial index on outcome = 'tie' keeps this a handful of rows.
 */
export async function listOpenTies(db: Db, actor: Actor | undefined, limit = 20): Promise<OpenTie[]> {
  authorize(actor, "events.read");
  const rows = rowsOf<{
    source: string;
    entity_type: string;
    entity_id: string;
    event_id: string;
    prior_event_id: string | null;
    version: string | null;
    recorded_at: string | Date;
  }>(
    await db.execute(sql`
      select t.source, t.entity_type, t.entity_id, t.event_id, t.prior_event_id, t.version::text, t.recorded_at
      from entity_transition t
      where t.outcome = 'tie' and t.recorded_at > now() - interval '30 days'
        and not exists (select 1 from entity_transition d
                        where d.source = t.source and d.event_id = t.event_id and d.resolution = 'by-hand')
      order by t.recorded_at desc
      limit ${Math.min(100, Math.max(1, limit))}`),
  );
  return rows.map((r) => ({
    source: r.source,
    entityType: r.entity_type,
    entityId: r.entity_id,
    eventId: r.event_id,
    keptEventId: r.prior_event_id,
    version: r.version === null ? null : Number(r.version),
    recordedAt: new Date(r.recorded_at),
  }));
}

/**
 * Ops decide a tie for the event that was not applied: its state is written, it becomes the entity's
 * applied event at the same version, and the timeline says who decided. Refused when the entity has moved
 * on to a newer version since (the tie no longer stands) or the event was not a tie.
 */
export async function applyTiedEvent(args: {
  db: Db;
  actor: Actor | undefined;
  input: EventKeyInput;
  handlers: HandlerLookup;
}): Promise<{ applied: true; replacedEventId: string }> {
  const entry = { action: "events.apply-tie", target: `event:${args.input.source}/${args.input.eventId}` };
  return audited(args.db, args.actor, "events.apply-tie", entry, async (tx, who, current) => {
    const key = EventKeyInput.parse(args.input);
    const [event] = rowsOf<{ event_type: string; payload: unknown }>(
      await tx.execute(
        sql`select event_type, ${payloadSql("e")} as payload from webhook_event e
            where source = ${key.source} and event_id = ${key.eventId}`,
      ),
    );
    if (!event) throw new NotFoundError(`no ${key.source} event ${key.eventId}`);
    const [last] = rowsOf<{ outcome: string; resolution: string | null }>(
      await tx.execute(sql`select outcome, resolution from entity_transition
                           where source = ${key.source} and event_id = ${key.eventId} order by id desc limit 1`),
    );
    if (last?.outcome !== "tie") throw new ConflictError(`event ${key.eventId} is not an undecided tie`);
    const handlerEvent = {
      source: key.source,
      eventId: key.eventId,
      eventType: event.event_type,
      payload: event.payload,
    };
    const handler = args.handlers(key.source, event.event_type);
    if (handler?.kind !== "snapshot") throw new ConflictError(`no versioned handler takes ${event.event_type}`);
    const { entity, state } = handler.read(handlerEvent);
    const [held] = rowsOf<{ version: string; event_id: string }>(
      await tx.execute(sql`select version::text, event_id from entity_version
                           where source = ${key.source} and entity_type = ${entity.type} and entity_id = ${entity.id}
                           for update`),
    );
    if (!held || Number(held.version) !== entity.version)
      throw new ConflictError(
        `the ${entity.type} has moved on to version ${held?.version ?? "none"} since the tie: this event is older now`,
      );
    const changes = await handler.write(tx, state, { entity, event: handlerEvent });
    await tx.execute(sql`update entity_version set event_id = ${key.eventId}, updated_at = now()
                         where source = ${key.source} and entity_type = ${entity.type} and entity_id = ${entity.id}`);
    await tx.insert(entityTransition).values({
      source: key.source,
      entityType: entity.type,
      entityId: entity.id,
      eventId: key.eventId,
      version: entity.version,
      outcome: "applied",
      changes,
      priorVersion: Number(held.version),
      priorEventId: held.event_id,
      resolution: "by-hand",
      note: `applied by hand by ${who.email}: the tie with event ${held.event_id} decided for this one`,
    });
    // The list reads the event's own outcome: it is applied now, no longer an open tie.
    await tx.execute(sql`update webhook_event_state set outcome = 'settled'
                         where source = ${key.source} and event_id = ${key.eventId}`);
    current.detail = { entity: `${entity.type}/${entity.id}`, version: entity.version, replaced: held.event_id };
    return { applied: true as const, replacedEventId: held.event_id };
  });
}
