import { sql } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import { pgArrays } from "@/db/pg-array";
import type { TransitionRow } from "@/lib/handlers/dispatch";

/**
 * A batch's timeline rows in one statement of eleven parameters. drizzle's multi-row insert binds one
 * parameter per cell and walks each through its entity checks, which showed in the worker's profile (bench:worker),
 * and PostgreSQL parsed a statement eleven parameters wide per row.
 */
export async function insertTransitions(tx: Db | Tx, rows: readonly TransitionRow[]): Promise<void> {
  if (rows.length === 0) return;
  const col = (f: (r: TransitionRow) => string | number | null | undefined) => rows.map((r) => f(r) ?? null);
  // The changes go as one JSON array (its elements taken by position): JSON.stringify writes it natively,
  // where a jsonb[] literal would escape every quote of every element once more.
  await tx.execute(sql`
    insert into entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes, note,
                                   prior_version, prior_event_id, resolution)
    select v.source, v.entity_type, v.entity_id, v.event_id, v.version, v.outcome,
           ${JSON.stringify(rows.map((r) => r.changes))}::jsonb -> (v.n::int - 1), v.note, v.prior_version,
           v.prior_event_id, v.resolution
    from unnest(${pgArrays([
      [col((r) => r.source), "text"],
      [col((r) => r.entityType), "text"],
      [col((r) => r.entityId), "text"],
      [col((r) => r.eventId), "text"],
      [col((r) => r.version), "bigint"],
      [col((r) => r.outcome), "text"],
      [col((r) => r.note), "text"],
      [col((r) => r.priorVersion), "bigint"],
      [col((r) => r.priorEventId), "text"],
      [col((r) => r.resolution), "text"],
    ])}) with ordinality as v(source, entity_type, entity_id, event_id, version, outcome, note, prior_version,
                              prior_event_id, resolution, n)
    order by v.n`);
}
