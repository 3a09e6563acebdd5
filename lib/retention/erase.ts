import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import { writeAudit } from "@/lib/audit/write";
import { requirePermission } from "@/lib/audit/audited";
import { authorize, type Actor } from "@/lib/roles";
import { ConflictError, describeError, ValidationError } from "@/lib/errors";
import { keysRelation, mentionMatcher, mentionsSql, scanMentions, type StoredEventKey } from "@/db/mentions";
import { eraseForwards } from "@/lib/forward/enqueue";
import { remainingCopies, remainingWords, type RemainingCopy } from "./erase-verify";

/** More events than this for one "subject" is an id many events share (a price, a plan), not a person. */
export const ERASE_MAX_EVENTS = 10_000;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const EraseInput = z.object({
  /** A customer or object id, or an email, as it appears in what the provider sent. */
  subject: z
    .string()
    .trim()
    .min(1, "Enter a customer id or an email")
    .max(320)
    .refine((v) => !/[\u0000-\u001f]/.test(v), "the subject holds a control character")
    .transform((v) => (EMAIL.test(v) ? v.toLowerCase() : v)),
  /** The request it fulfils (a ticket), kept in the audit row; never the subject itself. */
  reference: z.string().trim().max(200).optional(),
  /** The count the person confirmed after the preview: a different count now refuses (preview again). */
  expectedEvents: z.number().int().min(0).optional(),
});
export type EraseInput = z.input<typeof EraseInput>;

export interface ErasureCounts {
  events: number;
  /** Of those, events not settled yet: erased and ended `dead`, so no worker applies a redacted payload. */
  pending: number;
  transitions: number;
  /** Of `events`, those the search index names (subject_ids); the rest only reading their raw bodies found. */
  indexed: number;
  /** The read of every stored raw body and headers that always runs: how many events it read, in how long. */
  scan: { read: number; ms: number };
}

export interface ErasureResult extends ErasureCounts {
  /** No stored copy holds the subject any more. False: `remaining` says where one does; audited as an error. */
  done: boolean;
  remaining: RemainingCopy[];
}

interface Found extends ErasureCounts {
  keys: StoredEventKey[];
}

/**
 * Every event whose stored raw body, headers or payload mention the subject (lib/ledger/mentions.ts): the search
 * index's events, then a read of every stored event for those it does not name (an id past the extractor's
 * limits, a shape it does not know). Refuses a value on more than ERASE_MAX_EVENTS events.
 */
async function findErasure(db: Db | Tx, subject: string): Promise<Found> {
  const indexed = rowsOf<StoredEventKey>(
    await db.execute(sql`
      select source, event_id as "eventId" from webhook_event_body
      where subject_ids @> array[${subject}]::text[]
      limit ${ERASE_MAX_EVENTS + 1}`),
  );
  const tooMany = (n: number) =>
    new ValidationError(
      `${n.toLocaleString("en")} events mention this value: more than ${ERASE_MAX_EVENTS.toLocaleString("en")}, ` +
        "so it is an id many events share, not a data subject",
      "subject",
    );
  if (indexed.length > ERASE_MAX_EVENTS) throw tooMany(indexed.length);
  const scan = await scanMentions(db, subject, { maxMatches: ERASE_MAX_EVENTS });
  const keyOf = (k: StoredEventKey) => `${k.source}\u0000${k.eventId}`;
  const keys = new Map(indexed.map((k) => [keyOf(k), k]));
  for (const k of scan.keys) keys.set(keyOf(k), k);
  if (keys.size > ERASE_MAX_EVENTS) throw tooMany(keys.size);
  const all = [...keys.values()];
  const [row] = rowsOf<{ pending: number; transitions: number }>(
    await db.execute(sql`
      select (select count(*)::int from ${keysRelation(all)}
              join webhook_event_state s on s.source = k.source and s.event_id = k.event_id
              where s.status <> 'settled') as pending,
             (select count(*)::int from ${keysRelation(all)}
              join entity_transition t on t.source = k.source and t.event_id = k.event_id) as transitions`),
  );
  return {
    keys: all,
    events: all.length,
    pending: row?.pending ?? 0,
    transitions: row?.transitions ?? 0,
    indexed: indexed.length,
    scan: { read: scan.read, ms: scan.ms },
  };
}

const countsOf = ({ keys: _keys, ...counts }: Found): ErasureCounts => counts;

/** How many events mention the subject, and what erasing it would touch. A read: changes nothing. */
export async function previewErasure(db: Db, actor: Actor | undefined, input: EraseInput): Promise<ErasureCounts> {
  authorize(actor, "subjects.erase");
  return countsOf(await findErasure(db, EraseInput.parse(input).subject));
}

/**
 * Redact every event that mentions `subject`: payload, raw body and headers become a marker (body_sha256 and the
 * key stay, so the ledger still shows a signed delivery existed and a retry is still a duplicate), subject_ids
 * is emptied (search no longer finds it, nor the person's other ids found beside it in the payload now gone),
 * and its timeline rows lose their values. Errors and notes that
 * quote it are scrubbed. Events not settled yet end `dead` with a reason, so no worker applies the marker.
 * The search directory (subject_term) loses every term of every id and email those events held, and each name
 * found for them: none of it stays searchable. An id other events share too (a price) comes back when one of
 * theirs settles next. Then every stored copy is read again: what still holds the subject is returned.
 */
async function redact(tx: Tx, subject: string, expected?: number): Promise<Omit<ErasureResult, "done">> {
  // The reads first: a transaction that has written nothing yet holds back no other's cleanup while it scans.
  const found = await findErasure(tx, subject);
  if (expected !== undefined && found.events !== expected)
    throw new ConflictError(
      `${found.events} events mention this subject now, not the ${expected} previewed; preview again`,
    );
  const m = mentionMatcher(subject);
  const marker = JSON.stringify({ redacted: true, reason: "data subject erasure", erasedAt: new Date().toISOString() });
  const scrub = (column: string) => sql`regexp_replace(${sql.raw(column)}, ${m.pattern}, '[erased]', 'gi')`;
  const done = await tx.execute(sql`
    with hit as (
      -- Both halves locked in key order; the view cannot be locked through its outer join.
      select b.source, b.event_id, b.subject_ids, s.status
      from ${keysRelation(found.keys)}
      join webhook_event_body b on b.source = k.source and b.event_id = k.event_id
      join webhook_event_state s on s.source = b.source and s.event_id = b.event_id
      order by b.source, b.event_id for update of b, s
    ), bodies as (
      update webhook_event_body e
      set payload = null, -- the marker below is JSON: the payload is derived from it (db/payload.ts)
          raw_body = ${marker},
          headers = '{"redacted":"data subject erasure"}'::jsonb,
          subject_ids = '{}',
          entity_id = case when lower(e.entity_id) = lower(${subject}) then '[erased]' else e.entity_id end,
          intake_note = ${scrub("e.intake_note")}
      from hit h
      where e.source = h.source and e.event_id = h.event_id
      returning 1
    ), events as (
      update webhook_event_state e
      set last_error = case when e.status = 'settled' then ${scrub("e.last_error")}
                            else 'erased (data subject request): the payload was redacted, so it is not processed' end,
          resolution_note = ${scrub("e.resolution_note")},
          status = case when e.status = 'settled' then e.status else 'dead' end,
          lease_token = case when e.status = 'settled' then e.lease_token end,
          lease_expires_at = case when e.status = 'settled' then e.lease_expires_at end
      from hit h
      where e.source = h.source and e.event_id = h.event_id
      returning 1
    ), timeline as (
      update entity_transition t
      set changes = coalesce((select jsonb_object_agg(k, '{"from":"[erased]","to":"[erased]"}'::jsonb)
                              from jsonb_object_keys(t.changes) k), '{}'::jsonb),
          note = ${scrub("t.note")},
          entity_id = case when lower(t.entity_id) = lower(${subject}) then '[erased]' else t.entity_id end
      from hit h
      where t.source = h.source and t.event_id = h.event_id
      returning 1
    ), attempts as (
      update webhook_attempt a
      set error = ${scrub("a.error")}
      from hit h
      where a.source = h.source and a.event_id = h.event_id and ${mentionsSql(sql`a.error`, m)}
      returning 1
    )
    select (select count(*) from events) as events, (select count(*) from timeline) as transitions,
           (select count(*) from attempts) as attempts,
           array(select distinct unnest(h.subject_ids) from hit h)::text[] as subjects`);
  // Forwards of the erased events: what was not sent yet never will be (its payload is gone), and what the
  // destinations answered (which may echo the subject) is cleared. Sent forwards stay as history: they hold no payload.
  await eraseForwards(tx, keysRelation(found.keys), scrub("a.error"));
  // A statement of its own, after the one that locked the events: its snapshot (READ COMMITTED) sees every term an
  // attempt holding one of those rows wrote before it let go (the rule in lib/ledger/subject-terms.ts).
  const subjects = [...new Set([...(rowsOf<{ subjects: string[] }>(done)[0]?.subjects ?? []), subject])];
  await tx.execute(sql`delete from subject_term where subject = any(${pgArray(subjects, "text")})`);
  return { ...countsOf(found), remaining: await remainingCopies(tx, subject, m, found.keys) };
}

// The audit row says who, when and how many; it names the request, never the subject (that would keep it).
const entry = (i: z.output<typeof EraseInput>) => ({
  action: "subjects.erase",
  target: `subject${i.reference ? `:${i.reference}` : ""}`,
  detail: i.reference ? { reference: i.reference } : {},
});

/**
 * The redaction and its audit row in one transaction. A copy that remains does not roll the rest back (what could
 * be erased is), but the erasure is not done: the result says where, and the audit row is an error with the counts.
 */
async function runErasure(db: Db, who: Pick<Actor, "id" | "email"> | { id: null; email: string }, input: EraseInput) {
  const i = EraseInput.parse(input);
  const e = entry(i);
  try {
    return await db.transaction(async (tx): Promise<ErasureResult> => {
      const r = await redact(tx, i.subject, i.expectedEvents);
      const done = r.remaining.length === 0;
      await writeAudit(tx, who, {
        ...e,
        detail: {
          ...e.detail,
          events: r.events,
          pending: r.pending,
          transitions: r.transitions,
          indexed: r.indexed,
          scanned: r.scan.read,
          scanMs: r.scan.ms,
          ...(done ? {} : { remaining: Object.fromEntries(r.remaining.map((c) => [c.place, c.rows])) }),
        },
        result: done ? "ok" : "error",
        ...(done ? {} : { error: `not done: the subject is still stored in ${remainingWords(r.remaining)}` }),
      });
      return { ...r, done };
    });
  } catch (err) {
    await writeAudit(db, who, { ...e, result: "error", error: describeError(err) }).catch(() => {});
    throw err;
  }
}

/** The console's verb: admin only (subjects.erase), in one transaction with its audit row. */
export async function eraseSubject({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor | undefined;
  input: EraseInput;
}): Promise<ErasureResult> {
  const who = await requirePermission(db, actor, "subjects.erase", entry(EraseInput.parse(input)));
  return runErasure(db, who, input);
}

/** `npm run erase`: the same change, audited as the operator who ran it (no console session). */
export const eraseSubjectAs = ({ db, who, input }: { db: Db; who: string; input: EraseInput }) =>
  runErasure(db, { id: null, email: who }, input);

/** `npm run erase -- --dry-run`: the count, without a console session. */
export const countSubjectEvents = async (db: Db, input: EraseInput): Promise<ErasureCounts> =>
  countsOf(await findErasure(db, EraseInput.parse(input).subject));
