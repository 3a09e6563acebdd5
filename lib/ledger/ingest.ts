import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { EVENT_VIA } from "@/db/schema";
import { SOURCES } from "@/lib/providers/types";
import { pgArray } from "./pg-array";

export const IngestInput = z.object({
  source: z.enum(SOURCES),
  eventId: z.string().min(1).max(255),
  eventType: z.string().min(1).max(255),
  /** The exact body as received; the jsonb payload is parsed from it. */
  rawBody: z.string(),
  headers: z.record(z.string(), z.string()),
  entityType: z.string().max(255).optional(),
  entityId: z.string().max(255).optional(),
  entityVersion: z.number().int().optional(),
  subjectIds: z.array(z.string()).default([]),
  via: z.enum(EVENT_VIA).default("provider"),
  /** Replay only: who the worker's attempt is recorded as (default "replay"). */
  actor: z.string().max(255).optional(),
  /** shadow: a duplicate of a settled event is processed again and recorded as "would have been skipped". */
  claimMode: z.enum(["enforce", "shadow"]).default("enforce"),
});
export type IngestInput = z.input<typeof IngestInput>;

export interface IngestResult {
  /** true: this call inserted the ledger row and owns the event; false: a duplicate. */
  claimed: boolean;
  /** Shadow mode only: a duplicate that was queued to be processed again. */
  reprocessed: boolean;
}

// PostgreSQL's jsonb cannot hold U+0000. The raw body keeps the exact bytes; the jsonb copy swaps it.
function jsonbText(rawBody: string): string {
  if (!rawBody.includes("\\u0000")) return rawBody;
  return JSON.stringify(JSON.parse(rawBody), (_k, v: unknown) =>
    typeof v === "string" ? v.replaceAll("\u0000", "\uFFFD") : v,
  );
}

/**
 * Claim an event: one statement, one round trip. The insert into webhook_event is the lock
 * (ON CONFLICT DO NOTHING on the primary key); the delivery row records the attempt either way,
 * appended rather than counted on the event row, so a duplicate storm never queues on one row lock.
 */
export async function ingestEvent({ db, input }: { db: Db; input: IngestInput }): Promise<IngestResult> {
  const i = IngestInput.parse(input);
  const trigger = i.via === "replay" ? "replay" : "auto";
  const shadow = i.claimMode === "shadow";
  const result = await db.execute(sql`
    with claim as (
      insert into webhook_event (source, event_id, event_type, payload, raw_body, headers,
                                 entity_type, entity_id, entity_version, subject_ids, via, next_trigger, next_actor)
      values (${i.source}, ${i.eventId}, ${i.eventType}, ${jsonbText(i.rawBody)}::text::jsonb, ${i.rawBody},
              ${JSON.stringify(i.headers)}::text::jsonb, ${i.entityType ?? null}, ${i.entityId ?? null},
              ${i.entityVersion ?? null}::bigint, ${pgArray(i.subjectIds, "text")}, ${i.via},
              ${trigger}, ${trigger === "replay" ? (i.actor ?? "replay") : null})
      on conflict (source, event_id) do nothing
      returning 1
    ), again as (
      update webhook_event set status = 'claimed', next_attempt_at = now(), attempts_base = attempts
      where ${shadow} and source = ${i.source} and event_id = ${i.eventId} and status = 'settled'
        and not exists (select 1 from claim)
      returning 1
    )
    insert into webhook_delivery (source, event_id, via, claimed, reprocessed)
    select ${i.source}::text, ${i.eventId}::text, ${i.via}::text, exists (select 1 from claim), exists (select 1 from again)
    returning claimed, reprocessed`);
  const row = rowsOf<{ claimed: boolean; reprocessed: boolean }>(result)[0];
  return { claimed: row?.claimed === true, reprocessed: row?.reprocessed === true };
}
