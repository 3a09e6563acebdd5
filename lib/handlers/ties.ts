import { isDeepStrictEqual } from "node:util";
import { sql } from "drizzle-orm";
import { rowsOf, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import type { TieResolution } from "@/db/schema";
import { describeError } from "@/lib/errors";
import { payloadSql } from "@/db/payload";
import type { ProviderApi } from "./dispatch";
import type { ChainEvidence, HandlerEvent, SnapshotHandler, VersionedEntity } from "./types";

/** What the guard does with an event whose version equals the one applied. */
export type TieDecision =
  | { apply: "event"; resolution: TieResolution; note: string }
  | { apply: "provider-state"; state: unknown; resolution: "provider-api"; note: string }
  | { apply: "none"; resolution?: TieResolution; note: string };

export interface TieInput {
  event: HandlerEvent;
  handler: SnapshotHandler<unknown>;
  entity: VersionedEntity;
  /** What is applied now: its version equals the event's. */
  current: { version: number; eventId: string; event?: HandlerEvent; fromApi?: boolean };
}

/** The object just before the event: its own snapshot with the changed fields' previous values put back. */
const before = (e: ChainEvidence) => ({ ...e.after, ...e.previous });

/**
 * "B came right after A" when B's object, its changed fields put back, is A's object exactly. Whole
 * objects, not only the changed fields: two events a second apart can share a field's value by chance,
 * rarely a whole object. Decided only when exactly one order fits (an update and its revert fit both).
 */
export function chainOrder(
  incoming: ChainEvidence | undefined,
  applied: ChainEvidence | undefined,
): "incoming-after" | "applied-after" | undefined {
  if (!incoming || !applied) return undefined;
  const incomingAfter = incoming.previous !== undefined && isDeepStrictEqual(before(incoming), applied.after);
  const appliedAfter = applied.previous !== undefined && isDeepStrictEqual(before(applied), incoming.after);
  if (incomingAfter === appliedAfter) return undefined;
  return incomingAfter ? "incoming-after" : "applied-after";
}

/** Whether the state applied for this event was the provider's (a tie resolved from its API). */
async function appliedFromApi(tx: Tx, source: string, eventId: string): Promise<boolean> {
  const [row] = rowsOf<{ resolution: string | null }>(
    await tx.execute(sql`
      select resolution from entity_transition where source = ${source} and event_id = ${eventId}
      order by id desc limit 1`),
  );
  return row?.resolution === "provider-api";
}

async function loadEvent(tx: Tx, source: string, eventId: string): Promise<HandlerEvent | undefined> {
  const [row] = rowsOf<{ event_type: string; payload: unknown }>(
    await tx.execute(
      sql`select event_type, ${payloadSql("e")} as payload from webhook_event e
          where source = ${source} and event_id = ${eventId}`,
    ),
  );
  return row ? { source, eventId, eventType: row.event_type, payload: row.payload } : undefined;
}

/** Both events' stored headers, for a handler's finer time (one statement; ties are rare). */
async function headersOf(tx: Tx, source: string, ids: string[]): Promise<Map<string, Record<string, string>>> {
  const rows = rowsOf<{ event_id: string; headers: Record<string, string> }>(
    await tx.execute(sql`
      select event_id, headers from webhook_event
      where source = ${source} and event_id = any(${pgArray(ids, "text")})`),
  );
  return new Map(rows.map((r) => [r.event_id, r.headers]));
}

/** Which of the two a finer provider time puts later; undefined when either lacks it or they are equal. */
async function finerOrder(
  tx: Tx,
  handler: SnapshotHandler<unknown>,
  event: HandlerEvent,
  applied: HandlerEvent,
): Promise<{ order: "incoming-after" | "applied-after"; label: string } | undefined> {
  const finer = handler.finerTime;
  if (!finer) return undefined;
  const headers = await headersOf(tx, event.source, [event.eventId, applied.eventId]);
  const mine = finer.read({ ...event, headers: event.headers ?? headers.get(event.eventId) });
  const theirs = finer.read({ ...applied, headers: applied.headers ?? headers.get(applied.eventId) });
  if (mine === undefined || theirs === undefined || mine === theirs) return undefined;
  return { order: mine > theirs ? "incoming-after" : "applied-after", label: finer.label };
}

/**
 * An equal version is a tie, not staleness (Stripe's and Shopify's versions are seconds). In order:
 * the events' own chain evidence, then a finer provider time where the handler has one, then the
 * provider's API (the object's state now), else the tie is recorded for a person: the state applied
 * first is kept, and the note names both events.
 */
export async function decideTie(tx: Tx, input: TieInput, providerApi?: ProviderApi): Promise<TieDecision> {
  const { event, handler, entity, current } = input;
  const other = `event ${current.eventId}`;
  if (current.eventId === event.eventId)
    return { apply: "none", resolution: "chain", note: `the same event as the one applied (${other})` };
  const applied = current.event ?? (await loadEvent(tx, event.source, current.eventId));
  const mine = handler.chain?.(event);
  const theirs = applied && handler.chain?.(applied);
  // A state the API gave is no event's own: its event's evidence says nothing about it, so ask again.
  const fromApi = current.fromApi ?? (providerApi ? await appliedFromApi(tx, event.source, current.eventId) : false);
  // Ordered by evidence: the later one applies (this event) or stays (the one applied).
  const decided = (
    order: "incoming-after" | "applied-after",
    resolution: "chain" | "provider-time",
    by: string,
    why: { incoming: string; applied: string },
  ): TieDecision => ({
    apply: order === "incoming-after" ? "event" : "none",
    resolution,
    note:
      `tie at version ${entity.version} with ${other}, resolved by ${by}: ` +
      (order === "incoming-after" ? why.incoming : why.applied),
  });
  const order = fromApi ? undefined : chainOrder(mine, theirs);
  if (order)
    return decided(order, "chain", "chain evidence", {
      incoming: "this event's previous values are that event's state, so it came after",
      applied: "that event's previous values are this event's state, so it came after this one",
    });
  const finer = fromApi || !applied ? undefined : await finerOrder(tx, handler, event, applied);
  if (finer)
    return decided(finer.order, "provider-time", finer.label, {
      incoming: "this event's is later, so it came after",
      applied: "that event's is later, so it came after this one",
    });
  let apiProblem: string | undefined;
  if (handler.current && providerApi) {
    try {
      const body = await providerApi(event.source, handler.current.path(entity));
      if (body !== undefined) {
        const said = `tie at version ${entity.version} with ${other}, resolved from the provider's API`;
        if (mine && isDeepStrictEqual(body, mine.after))
          return { apply: "event", resolution: "provider-api", note: `${said}: this event's state is the current one` };
        if (theirs && !fromApi && isDeepStrictEqual(body, theirs.after))
          return { apply: "none", resolution: "provider-api", note: `${said}: that event's state is the current one` };
        return {
          apply: "provider-state",
          state: handler.current.state(body, entity),
          resolution: "provider-api",
          note: `${said}: applied the object's current state`,
        };
      }
    } catch (err) {
      apiProblem = `the provider's API did not answer (${describeError(err).slice(0, 200)})`;
    }
  }
  const noFiner = handler.finerTime ? `, and ${handler.finerTime.label} is missing or the same on one of them` : "";
  const why =
    apiProblem ?? (handler.current ? "no API key is configured for this source" : `no chain evidence${noFiner}`);
  return {
    apply: "none",
    note:
      `tie at version ${entity.version} with ${other}: the order could not be decided (${why}); ` +
      "kept that event's state, which was applied first. Apply this event by hand if it is the newer one.",
  };
}
