import { hash } from "node:crypto";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { EVENT_VIA, SOURCE_SLUG } from "@/db/schema";
import { ValidationError } from "@/lib/errors";
import { isPgStorable, jsonbText } from "./json";

const storable = (max: number) =>
  z
    .string()
    .max(max)
    .refine(isPgStorable, { message: "holds U+0000 or a lone surrogate, which PostgreSQL cannot store" });

/** One event to claim, as the edge (receiver, replay page, seed) hands it over. */
export const ClaimInput = z.object({
  /** The source's slug (its URL segment): the dedup key is (source, event id). */
  source: z.string().regex(SOURCE_SLUG, "not a source slug"),
  eventId: storable(255).pipe(z.string().min(1)),
  eventType: storable(255).pipe(z.string().min(1)),
  /** The exact body as received (UTF-8 JSON text); the jsonb payload is derived from it. */
  rawBody: z.string(),
  headers: z.record(z.string(), z.string()),
  entityType: storable(255).optional(),
  entityId: storable(255).optional(),
  entityVersion: z.number().int().optional(),
  subjectIds: z.array(storable(320)).default([]),
  /** What the receiver could not use (a version out of range, say): kept for the worker and the console. */
  intakeNote: storable(500).optional(),
  via: z.enum(EVENT_VIA).default("provider"),
  /**
   * The provider does not sign its delivery id (or type): the body's SHA-256 is a second key within this
   * scope, the event type or "" for the whole source (Provider.unsignedId), so a re-sent capture dedupes.
   */
  bodyKeyScope: storable(255).optional(),
  /** The fingerprint of the secret that verified this delivery at arrival (none for a replay). */
  verifiedWith: storable(64).optional(),
  /** Sent by the console's test button, as the signed body says (lib/providers/test-marker.ts): never applied. */
  test: z.boolean().default(false),
  /** Replay only: who the worker's attempt is recorded as (default "replay"). */
  actor: z.string().max(255).optional(),
  /** shadow: a duplicate of a settled event is processed again and recorded as "would have been skipped". */
  claimMode: z.enum(["enforce", "shadow"]).default("enforce"),
});
export type ClaimInput = z.input<typeof ClaimInput>;
/** A claim parsed once at the edge; the claim verbs take nothing else. */
export type Claim = z.output<typeof ClaimInput> & {
  /** The text of the jsonb copy, when it must differ from the raw body (see jsonbText). */
  readonly jsonb: string | undefined;
  /** Hex SHA-256 of the raw body's UTF-8 bytes: proof of what arrived, and a second key where ids are unsigned. */
  readonly bodySha256: string;
  readonly __parsed: true;
};

export interface ClaimResult {
  /** true: this call inserted the ledger row and owns the event; false: a duplicate. */
  claimed: boolean;
  /** Shadow mode only: a duplicate that was queued to be processed again. */
  reprocessed: boolean;
}

/**
 * The parse for fields from outside (a test, a seed): a ValidationError naming the field, or a claim the verbs
 * accept as it is. `payload` is the parsed body when the caller already has it (spares a second JSON.parse).
 */
export function parseClaim(input: ClaimInput, payload?: unknown): Claim {
  const parsed = ClaimInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || undefined;
    throw new ValidationError(`${field ?? "claim"}: ${issue?.message ?? "invalid"}`, field);
  }
  return claimOf(parsed.data, payload);
}

/**
 * A claim from fields that already hold what ClaimInput asks (the edge's describeDelivery builds them so): the
 * schema is not run again on the one path providers hammer. Adds the jsonb copy, when it must differ, and the hash.
 */
export function claimOf(fields: z.output<typeof ClaimInput>, payload?: unknown): Claim {
  const raw = fields.rawBody;
  let jsonb: string | undefined;
  try {
    jsonb = jsonbText(raw, () => (payload === undefined ? JSON.parse(raw) : payload));
  } catch {
    throw new ValidationError("rawBody: not valid JSON", "rawBody");
  }
  const bodySha256 = hash("sha256", raw, "hex");
  return { ...fields, jsonb: jsonb === raw ? undefined : jsonb, bodySha256 } as Claim;
}

/**
 * Duplicate delivery rows per event besides the one that claimed it: a provider's retries fit. Past them a new
 * duplicate rewrites the oldest row, which then stands for it too (`replaced` counts the arrivals a row stands for
 * beyond its own), so a replay flood adds no rows.
 */
const KEPT_DUPLICATES = 10;

/**
 * Claim events: one statement, one round trip, for one event or a list of them (a receiver batch, a
 * replay page, a seed). The insert into webhook_event_body is the lock (ON CONFLICT DO NOTHING on the
 * primary key, and on the body's hash where that is a key); an event retention pruned is a duplicate by its
 * tombstone. The delivery row records the arrival either way, on rows of its own rather than counted on the event
 * row, so a duplicate storm never queues on one row lock; past KEPT_DUPLICATES an event's oldest duplicate row is
 * rewritten to stand for the new arrivals. Results come back in input order.
 *
 * The list travels as one JSON parameter (json_to_recordset), which binds the same on both drivers.
 * Within it the first copy of an event id is the one that may claim; later copies are duplicates.
 * Rows are inserted in key order, so two statements claiming overlapping ids cannot deadlock.
 */
export async function claimEvents(db: Db, claims: readonly Claim[]): Promise<ClaimResult[]> {
  if (claims.length === 0) return [];
  const rows = claims.map((c, ord) => {
    const trigger = c.via === "replay" ? "replay" : "auto";
    return {
      ord,
      source: c.source,
      event_id: c.eventId,
      event_type: c.eventType,
      // Only when it differs from the raw body (a \u0000 swapped): neither shipped nor stored twice.
      payload: c.jsonb ?? null,
      raw_body: c.rawBody,
      headers: c.headers,
      entity_type: c.entityType ?? null,
      entity_id: c.entityId ?? null,
      entity_version: c.entityVersion ?? null,
      subject_ids: c.subjectIds,
      intake_note: c.intakeNote ?? null,
      body_sha256: c.bodySha256,
      body_is_key: c.bodyKeyScope !== undefined || null,
      body_scope: c.bodyKeyScope ?? "",
      verified_with: c.verifiedWith ?? null,
      via: c.via,
      test: c.test,
      next_trigger: trigger,
      next_actor: trigger === "replay" ? (c.actor ?? "replay") : null,
      shadow: c.claimMode === "shadow",
    };
  });
  const result = await db.execute(sql`
    with input as (
      select t.*, row_number() over (partition by t.source, t.event_id order by t.ord) = 1 as first
      from json_to_recordset(${JSON.stringify(rows)}::text::json) as t(
        ord int, source text, event_id text, event_type text, payload text, raw_body text, headers jsonb,
        entity_type text, entity_id text, entity_version bigint, subject_ids text[], intake_note text, body_sha256 text,
        body_is_key boolean, body_scope text, verified_with text, via text, test boolean, next_trigger text,
        next_actor text, shadow boolean)
    ), claim as (
      insert into webhook_event_body (source, event_id, payload, raw_body, headers, entity_type, entity_id,
                                      entity_version, subject_ids, intake_note, body_sha256, body_is_key, body_scope,
                                      verified_with, via, test)
      -- The jsonb copy only where it differs from the raw body (db/payload.ts); the raw body is still
      -- cast (CASE tests in order: only where no copy came), so a body PostgreSQL cannot parse is refused
      -- here rather than failing a reader later.
      select source, event_id,
             case when payload is not null then payload::jsonb when raw_body::jsonb is null then null end,
             raw_body, headers, entity_type, entity_id,
             entity_version, subject_ids, intake_note, body_sha256, body_is_key, body_scope, verified_with, via, test
      from input i
      where first
        -- Pruned by retention (lib/retention/prune.ts): its tombstone keeps the key, and the body's hash where
        -- that is a key too. Pruning commits the tombstone and waits out older snapshots before it deletes
        -- the event row, so this statement sees one or the other.
        and not exists (select 1 from webhook_tombstone t where t.source = i.source and t.event_id = i.event_id)
        and not exists (
          select 1 from webhook_tombstone t
          where i.body_is_key
            and t.source = i.source and t.body_sha256 = decode(i.body_sha256, 'hex') and t.body_key
            -- "" is the whole source: tombstones from before scopes, and sources keyed that way.
            and t.body_scope in (i.body_scope, '')
        )
      order by source, event_id
      -- No target: a conflict on the event id or, where ids are unsigned, on the body's hash in its scope
      -- (webhook_event_body_scope_key_idx) is a duplicate.
      on conflict do nothing
      returning source, event_id
    ), state as (
      -- The event's lifecycle half (db/schema/ledger.ts), for exactly the rows the body insert claimed.
      insert into webhook_event_state (source, event_id, event_type, next_trigger, next_actor)
      select i.source, i.event_id, i.event_type, i.next_trigger, i.next_actor
      from claim c join input i on i.source = c.source and i.event_id = c.event_id and i.first
      order by i.source, i.event_id
    ), again as (
      update webhook_event_state e
      set status = 'claimed', next_attempt_at = now(), attempts_base = e.attempts
      from input i
      where i.first and i.shadow and e.source = i.source and e.event_id = i.event_id and e.status = 'settled'
        and not exists (select 1 from claim c where c.source = i.source and c.event_id = i.event_id)
      returning e.source, e.event_id
    ), outcome as (
      select i.ord, i.source, i.event_id, i.via, i.body_is_key, i.body_scope, i.body_sha256,
             i.first and exists (select 1 from claim c where c.source = i.source and c.event_id = i.event_id) as claimed,
             i.first and exists (select 1 from again a where a.source = i.source and a.event_id = i.event_id) as reprocessed
      from input i
    ), owner as (
      -- The event a delivery is recorded on: its own id, unless it is a duplicate by the body's hash under an id
      -- of its own. Then it is the event (claimed just now, stored, or pruned) holding that body, so replays
      -- under fresh ids count against one event's rows. Not yet visible to this statement: its own id.
      select o.ord, o.source, o.via, o.claimed, o.reprocessed,
             case
               when o.claimed or not coalesce(o.body_is_key, false) then o.event_id
               when exists (select 1 from webhook_event_body b where b.source = o.source and b.event_id = o.event_id)
                 or exists (select 1 from webhook_tombstone t where t.source = o.source and t.event_id = o.event_id)
                 then o.event_id
               else coalesce(
                 (select i.event_id
                  from claim c join input i on i.source = c.source and i.event_id = c.event_id and i.first
                  where i.source = o.source and i.body_is_key and i.body_scope = o.body_scope
                    and i.body_sha256 = o.body_sha256
                  limit 1),
                 (select b.event_id from webhook_event_body b
                  where b.source = o.source and b.body_is_key and b.body_scope = o.body_scope
                    and b.body_sha256 = o.body_sha256
                  limit 1),
                 (select t.event_id from webhook_tombstone t
                  where t.source = o.source and t.body_key and t.body_sha256 = decode(o.body_sha256, 'hex')
                    and t.body_scope in (o.body_scope, '')
                  limit 1),
                 o.event_id)
             end as event_id
      from outcome o
    ), arrivals as (
      -- This statement's duplicates, a group per event, written as one row that stands for all of them.
      select source, event_id, count(*)::int as k, (array_agg(via order by ord desc))[1] as via,
             bool_or(reprocessed) as reprocessed, min(ord) as ord
      from owner where not claimed
      group by source, event_id
    ), oldest as (
      -- Once an event has its fill of duplicate rows, its oldest is rewritten to stand for the new arrivals too. A
      -- row added and the oldest deleted instead left a dead index entry that every later claim of the event
      -- walked until a VACUUM (a storm of duplicates ran at half the speed, and slower the longer it went on). A row
      -- another claim is rewriting is skipped; with none free, a row is added: past the fill, by as many as claims
      -- of one event run at once.
      select a.source, a.event_id, d.id
      from arrivals a
      cross join lateral (
        select d.id from webhook_delivery d
        where d.source = a.source and d.event_id = a.event_id and not d.claimed
          and (select count(*) from webhook_delivery c
               where c.source = a.source and c.event_id = a.event_id and not c.claimed) >= ${KEPT_DUPLICATES}
        order by d.received_at, d.id
        limit 1
        for update skip locked
      ) d
    ), rewritten as (
      update webhook_delivery d
      set received_at = now(), via = a.via, reprocessed = a.reprocessed, replaced = d.replaced + a.k
      from oldest o join arrivals a on a.source = o.source and a.event_id = o.event_id
      where d.source = o.source and d.event_id = o.event_id and d.id = o.id
      returning d.source, d.event_id
    ), delivery as (
      insert into webhook_delivery (source, event_id, via, claimed, reprocessed, replaced)
      select source, event_id, via, claimed, reprocessed, replaced
      from (
        select o.ord, o.source, o.event_id, o.via, true as claimed, o.reprocessed, 0 as replaced
        from owner o where o.claimed
        union all
        select a.ord, a.source, a.event_id, a.via, false, a.reprocessed, a.k - 1
        from arrivals a
        where not exists (select 1 from rewritten r where r.source = a.source and r.event_id = a.event_id)
      ) x
      order by ord
    )
    select ord, claimed, reprocessed from outcome order by ord`);
  const out = rowsOf<{ ord: number; claimed: boolean; reprocessed: boolean }>(result);
  return claims.map((_, n) => ({ claimed: out[n]?.claimed === true, reprocessed: out[n]?.reprocessed === true }));
}
