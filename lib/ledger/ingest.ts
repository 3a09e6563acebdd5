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
  /** Replay only: who the worker's attempt is recorded as (default "replay"). */
  actor: z.string().max(255).optional(),
  /** shadow: a duplicate of a settled event is processed again and recorded as "would have been skipped". */
  claimMode: z.enum(["enforce", "shadow"]).default("enforce"),
});
export type IngestInput = z.input<typeof IngestInput>;
export type ValidIngestInput = z.output<typeof IngestInput>;

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
 * Claim events: one statement, one round trip, for one delivery or a batch of them. The insert into
 * webhook_event is the lock (ON CONFLICT DO NOTHING on the primary key); the delivery row records the
 * attempt either way, appended rather than counted on the event row, so a duplicate storm never queues
 * on one row lock. Results come back in input order.
 *
 * A batch travels as one JSON parameter (json_to_recordset), which binds the same on both drivers.
 * Inside a batch the first copy of an event id is the one that may claim; later copies are duplicates.
 * Candidates are inserted in key order, so two batches claiming overlapping ids cannot deadlock.
 */
export async function ingestEvents(db: Db, inputs: readonly IngestInput[]): Promise<IngestResult[]> {
  return ingestValidated(db, inputs.map((input) => IngestInput.parse(input)));
}

/** ingestEvents for inputs already parsed with IngestInput (the claim batcher checks each as it arrives). */
export async function ingestValidated(db: Db, inputs: readonly ValidIngestInput[]): Promise<IngestResult[]> {
  if (inputs.length === 0) return [];
  const rows = inputs.map((i, ord) => {
    const trigger = i.via === "replay" ? "replay" : "auto";
    const jsonb = jsonbText(i.rawBody);
    return {
      // payload is sent only when it differs from the raw body (a \u0000 swapped): no need to ship 2 KB twice.
      ord, source: i.source, event_id: i.eventId, event_type: i.eventType, payload: jsonb === i.rawBody ? null : jsonb, raw_body: i.rawBody,
      headers: i.headers, entity_type: i.entityType ?? null, entity_id: i.entityId ?? null, entity_version: i.entityVersion ?? null,
      subject_ids: i.subjectIds, via: i.via, next_trigger: trigger, next_actor: trigger === "replay" ? (i.actor ?? "replay") : null,
      shadow: i.claimMode === "shadow",
    };
  });
  const result = await db.execute(sql`
    with input as (
      select t.*, row_number() over (partition by t.source, t.event_id order by t.ord) = 1 as first
      from json_to_recordset(${JSON.stringify(rows)}::text::json) as t(
        ord int, source text, event_id text, event_type text, payload text, raw_body text, headers jsonb,
        entity_type text, entity_id text, entity_version bigint, subject_ids text[], via text,
        next_trigger text, next_actor text, shadow boolean)
    ), claim as (
      insert into webhook_event (source, event_id, event_type, payload, raw_body, headers,
                                 entity_type, entity_id, entity_version, subject_ids, via, next_trigger, next_actor)
      select source, event_id, event_type, coalesce(payload, raw_body)::jsonb, raw_body, headers, entity_type, entity_id, entity_version,
             subject_ids, via, next_trigger, next_actor
      from input where first
      order by source, event_id
      on conflict (source, event_id) do nothing
      returning source, event_id
    ), again as (
      update webhook_event e set status = 'claimed', next_attempt_at = now(), attempts_base = e.attempts
      from input i
      where i.first and i.shadow and e.source = i.source and e.event_id = i.event_id and e.status = 'settled'
        and not exists (select 1 from claim c where c.source = i.source and c.event_id = i.event_id)
      returning e.source, e.event_id
    ), outcome as (
      select i.ord, i.source, i.event_id, i.via,
             i.first and exists (select 1 from claim c where c.source = i.source and c.event_id = i.event_id) as claimed,
             i.first and exists (select 1 from again a where a.source = i.source and a.event_id = i.event_id) as reprocessed
      from input i
    ), delivery as (
      insert into webhook_delivery (source, event_id, via, claimed, reprocessed)
      select source, event_id, via, claimed, reprocessed from outcome order by ord
    )
    select ord, claimed, reprocessed from outcome order by ord`);
  const out = rowsOf<{ ord: number; claimed: boolean; reprocessed: boolean }>(result);
  return inputs.map((_, n) => ({ claimed: out[n]?.claimed === true, reprocessed: out[n]?.reprocessed === true }));
}

/** One delivery: a batch of one. */
export async function ingestEvent({ db, input }: { db: Db; input: IngestInput }): Promise<IngestResult> {
  const [result] = await ingestEvents(db, [input]);
  return result!;
}
