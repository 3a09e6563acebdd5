import { plural } from "@/lib/format/words";
import type { EntityTimeline } from "./entity-timeline";
import type { SubjectEntity } from "./subject";

type Named = { entityType: string; entityId: string };

/**
 * Why an entity has no version, in words; null when it has one (the page shows its date). Delta entities (a
 * customer's totals) and entities whose events move another one (an invoice moves its customer) are applied once
 * per event, by its id: "none applied yet" is said only when nothing was applied at all.
 */
function versionWords(f: { versioned: boolean; appliedHere: boolean; appliedTo: readonly Named[] }): string | null {
  if (f.versioned) return null;
  if (f.appliedHere) return "no version: applied once per event";
  if (f.appliedTo.length > 0)
    return `no version: applied once per event, to ${f.appliedTo.map((m) => `${m.entityType} ${m.entityId}`).join(", ")}`;
  return "none applied yet";
}

/** The entity page's Version line. */
export function timelineVersionWords(t: Pick<EntityTimeline, "current" | "entries">): string | null {
  const appliedTo: Named[] = [];
  for (const e of t.entries)
    if (e.outcome === "elsewhere" && e.eventStatus === "settled")
      for (const m of e.moved)
        if (!appliedTo.some((x) => x.entityType === m.entityType && x.entityId === m.entityId)) appliedTo.push(m);
  return versionWords({
    versioned: t.current !== undefined,
    appliedHere: t.entries.some((e) => e.outcome === "applied"),
    appliedTo,
  });
}

/** A customer view's entity card: the same words, from what its events did. */
export function subjectEntityVersionWords(x: SubjectEntity): string | null {
  return versionWords({ versioned: x.current !== null, appliedHere: x.moved, appliedTo: x.movedInstead });
}

/** What the customer view's count counts: the entities its events moved, and apart, those they only name. */
export function entityCountWords(entities: readonly Pick<SubjectEntity, "moved">[]): string {
  const moved = entities.filter((x) => x.moved).length;
  const named = entities.length - moved;
  return `${plural(moved, "entity", "entities")} moved${named > 0 ? `, ${named.toLocaleString("en")} named only` : ""}`;
}
