import { diff } from "./read";
import type { Changes, SnapshotWrite } from "./types";

/** The writes a batch statement upserts: each entity's last state in the batch, in key order (the lock order). */
export function lastPerEntity<S extends { externalId: string }>(
  items: readonly SnapshotWrite<S>[],
): SnapshotWrite<S>[] {
  const last = new Map<string, SnapshotWrite<S>>();
  for (const item of items) last.set(item.state.externalId, item);
  return [...last.values()].sort((a, b) => (a.state.externalId < b.state.externalId ? -1 : 1));
}

/**
 * Each write's changes, in batch order: the first of an entity against its stored row (`stored`, as it was before
 * the statement), each later one against what the write before it left.
 */
export function chainedChanges<S extends { externalId: string }, F extends Record<string, unknown>>(
  items: readonly SnapshotWrite<S>[],
  stored: Map<string, F>,
  fieldsOf: (state: S) => F,
  fields: readonly (keyof F & string)[],
): Changes[] {
  const before = new Map<string, F | undefined>(stored);
  return items.map((item) => {
    const after = fieldsOf(item.state);
    const changes = diff(before.get(item.state.externalId), after, fields);
    before.set(item.state.externalId, after);
    return changes;
  });
}
