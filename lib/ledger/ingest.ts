import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { EVENT_VIA } from "@/db/schema";
import { SOURCES } from "@/lib/providers/types";

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
});
export type IngestInput = z.input<typeof IngestInput>;

export interface IngestResult {
  /** true: this call inserted the ledger row and owns the event; false: a duplicate. */
  claimed: boolean;
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
  const result = await db.execute(sql`
    with claim as (
      insert into webhook_event (source, event_id, event_type, payload, raw_body, headers,
                                 entity_type, entity_id, entity_version, subject_ids, via)
      values (${i.source}, ${i.eventId}, ${i.eventType}, ${jsonbText(i.rawBody)}::text::jsonb, ${i.rawBody},
              ${JSON.stringify(i.headers)}::text::jsonb, ${i.entityType ?? null}, ${i.entityId ?? null},
              ${i.entityVersion ?? null}::bigint, ${`{${i.subjectIds.map(pgArrayItem).join(",")}}`}::text[], ${i.via})
      on conflict (source, event_id) do nothing
      returning 1
    )
    insert into webhook_delivery (source, event_id, via, claimed)
    select ${i.source}::text, ${i.eventId}::text, ${i.via}::text, exists (select 1 from claim)
    returning claimed`);
  const row = rowsOf<{ claimed: boolean }>(result)[0];
  return { claimed: row?.claimed === true };
}

/** One element of a text[] literal, quoted and escaped (the driver-neutral way to bind an array). */
function pgArrayItem(value: string): string {
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
