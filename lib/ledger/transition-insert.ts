import { sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { pgArrays } from "@/db/pg-array";
import type { TransitionRow } from "@/lib/handlers/dispatch";

/**
 * A batch's timeline rows in one statement of eleven array parameters. drizzle's multi-row insert binds one
 * parameter per cell and walks each through its entity checks: for a batch of 100 it was a quarter of the
 * worker's own CPU (bench:worker profile), and PostgreSQL parsed a 1,100-parameter statement per batch.
 */
export async function insertTransitions(tx: Tx, rows: readonly TransitionRow[]): Promise<void> {
  if (rows.length === 0) return;
  const col = (f: (r: TransitionRow) => string | number | null | undefined) => rows.map((r) => f(r) ?? null);
  await tx.execute(sql`
    insert into entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes, note,
                                   prior_version, prior_event_id, resolution)
    select * from unnest(${pgArrays([
      [col((r) => r.source), "text"],
      [col((r) => r.entityType), "text"],
      [col((r) => r.entityId), "text"],
      [col((r) => r.eventId), "text"],
      [col((r) => r.version), "bigint"],
      [col((r) => r.outcome), "text"],
      [col((r) => JSON.stringify(r.changes)), "jsonb"],
      [col((r) => r.note), "text"],
      [col((r) => r.priorVersion), "bigint"],
      [col((r) => r.priorEventId), "text"],
      [col((r) => r.resolution), "text"],
    ])})`);
}
