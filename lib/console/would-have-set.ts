import type { Db } from "@/db/client";
import type { EntityTransition } from "@/db/schema";
import { handlerLookup } from "@/lib/handlers/registry";
import { HandlerInputError } from "@/lib/handlers/types";
import type { ProviderKind } from "@/lib/providers/types";
import { presentState, readEntityStates } from "./entity-state";

/** What a stale or tied event carried, field by field, beside the state standing now (what won). */
export interface WouldHaveSet {
  transitionId: number;
  fields: { field: string; carried: unknown; standing: unknown }[];
  /** The event and version behind the standing row; null when no row stands yet. */
  standing: { eventId: string | null; version: number | null } | null;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The handler's own reading of the payload, as a business row: the state it would have written. */
function carriedRow(
  kind: ProviderKind,
  event: { source: string; eventId: string; eventType: string; payload: unknown },
) {
  const handler = handlerLookup(undefined, () => kind)(event.source, event.eventType);
  if (handler?.kind !== "snapshot") return undefined;
  try {
    const { entity, state } = handler.read(event);
    const row: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(state as Record<string, unknown>))
      if (k !== "externalId") row[snake(k)] = v instanceof Date ? v.toISOString() : v;
    return { entity, row };
  } catch (err) {
    // The payload no longer reads (erased, or a handler that changed since): nothing to compare.
    if (err instanceof HandlerInputError) return undefined;
    throw err;
  }
}

/**
 * For each timeline row that did not apply (stale, tie): the fields the event carried next to the business row
 * as it stands, so "nothing changed" reads as "it would have set plan X; plan Y won".
 */
export async function wouldHaveSet(
  db: Db,
  kind: ProviderKind | undefined,
  event: { source: string; eventId: string; eventType: string; payload: unknown },
  transitions: readonly EntityTransition[],
): Promise<WouldHaveSet[]> {
  const notApplied = transitions.filter((t) => t.outcome !== "applied");
  const carried = kind && notApplied.length > 0 ? carriedRow(kind, event) : undefined;
  if (!carried) return [];
  const out: WouldHaveSet[] = [];
  for (const t of notApplied) {
    if (t.entityType !== carried.entity.type || t.entityId !== carried.entity.id) continue;
    const [now] = (await readEntityStates(db, t)) ?? [];
    const row = presentState(t.entityType, carried.row);
    out.push({
      transitionId: t.id,
      fields: Object.keys(row).map((field) => ({ field, carried: row[field], standing: now?.[field] ?? null })),
      standing: now
        ? {
            eventId: typeof now.updated_by_event === "string" ? now.updated_by_event : null,
            version: now.version === undefined || now.version === null ? null : Number(now.version),
          }
        : null,
    });
  }
  return out;
}
