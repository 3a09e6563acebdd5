import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import { writeAudit } from "@/lib/audit";
import { audited } from "@/lib/auth/audited";
import { authorize, type Actor } from "@/lib/auth/roles";
import { ConflictError, ValidationError } from "@/lib/errors";

/** More events than this for one "subject" is an id many events share (a price, a plan), not a person. */
export const ERASE_MAX_EVENTS = 10_000;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const EraseInput = z.object({
  /** A customer or object id, or an email, as search finds it (lib/ledger/subjects.ts). */
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
}

const matching = (subject: string) => sql`subject_ids @> array[${subject}]::text[]`;

/** How many events mention the subject, and what erasing it would touch. A read: changes nothing. */
export async function previewErasure(db: Db, actor: Actor | undefined, input: EraseInput): Promise<ErasureCounts> {
  authorize(actor, "subjects.erase");
  return countErasure(db, EraseInput.parse(input).subject);
}

async function countErasure(db: Db | Tx, subject: string): Promise<ErasureCounts> {
  const [row] = rowsOf<ErasureCounts>(
    await db.execute(sql`
      with hit as (select source, event_id, status from webhook_event where ${matching(subject)})
      select (select count(*)::int from hit) as events,
             (select count(*)::int from hit where status <> 'settled') as pending,
             (select count(*)::int from entity_transition t join hit h using (source, event_id)) as transitions`),
  );
  return row ?? { events: 0, pending: 0, transitions: 0 };
}

/** `value` as a regular expression matching itself literally (PostgreSQL's ARE escapes like JavaScript's). */
const literal = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Redact every event that mentions `subject`: payload, raw body and headers become a marker (body_sha256 and the
 * key stay, so the ledger still shows a signed delivery existed and a retry is still a duplicate), subject_ids
 * is emptied (search no longer finds it, nor the person's other ids found beside it in the payload now gone),
 * and its timeline rows lose their values. Errors and notes that
 * quote it are scrubbed. Events not settled yet end `dead` with a reason, so no worker applies the marker.
 * The search directory (subject_term) loses every term of every id and email those events held, and each name
 * found for them: none of it stays searchable. An id other events share too (a price) comes back when one of
 * theirs settles next.
 */
async function redact(tx: Tx, subject: string, expected?: number): Promise<ErasureCounts> {
  const counts = await countErasure(tx, subject);
  if (expected !== undefined && counts.events !== expected)
    throw new ConflictError(
      `${counts.events} events mention this subject now, not the ${expected} previewed; preview again`,
    );
  if (counts.events > ERASE_MAX_EVENTS)
    throw new ValidationError(
      `${counts.events} events mention this value: more than ${ERASE_MAX_EVENTS.toLocaleString("en")}, so it is an id many events share, not a data subject`,
      "subject",
    );
  const marker = JSON.stringify({ redacted: true, reason: "data subject erasure", erasedAt: new Date().toISOString() });
  const pattern = literal(subject);
  const scrub = (column: string) => sql`regexp_replace(${sql.raw(column)}, ${pattern}, '[erased]', 'gi')`;
  // Before the directory loses rows: a worker that remembers rows as present sends them again from now on.
  await tx.execute(sql`select nextval('subject_term_epoch')`);
  const done = await tx.execute(sql`
    with hit as (
      -- Both halves locked in key order; the view cannot be locked through its outer join.
      select b.source, b.event_id, b.subject_ids, s.status
      from webhook_event_body b join webhook_event_state s on s.source = b.source and s.event_id = b.event_id
      where b.subject_ids @> array[${subject}]::text[] order by b.source, b.event_id for update of b, s
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
      where a.source = h.source and a.event_id = h.event_id and a.error ~* ${pattern}
      returning 1
    )
    select (select count(*) from events) as events, (select count(*) from timeline) as transitions,
           (select count(*) from attempts) as attempts,
           array(select distinct unnest(h.subject_ids) from hit h)::text[] as subjects`);
  // A statement of its own, after the one that locked the events: its snapshot (READ COMMITTED) sees every term an
  // attempt holding one of those rows wrote before it let go (the rule in lib/ledger/subject-terms.ts).
  const subjects = [...new Set([...(rowsOf<{ subjects: string[] }>(done)[0]?.subjects ?? []), subject])];
  await tx.execute(sql`delete from subject_term where subject = any(${pgArray(subjects, "text")})`);
  return counts;
}

// The audit row says who, when and how many; it names the request, never the subject (that would keep it).
const entry = (i: z.output<typeof EraseInput>) => ({
  action: "subjects.erase",
  target: `subject${i.reference ? `:${i.reference}` : ""}`,
  detail: i.reference ? { reference: i.reference } : {},
});

/** The console's verb: admin only (subjects.erase), in one transaction with its audit row. */
export async function eraseSubject({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor | undefined;
  input: EraseInput;
}): Promise<ErasureCounts> {
  const i = EraseInput.parse(input);
  return audited(db, actor, "subjects.erase", entry(i), async (tx, _who, e) => {
    const counts = await redact(tx, i.subject, i.expectedEvents);
    e.detail = { ...e.detail, ...counts };
    return counts;
  });
}

/** `npm run erase`: the same change, audited as the operator who ran it (no console session). */
export async function eraseSubjectAs({ db, who, input }: { db: Db; who: string; input: EraseInput }) {
  const i = EraseInput.parse(input);
  return db.transaction(async (tx) => {
    const counts = await redact(tx, i.subject, i.expectedEvents);
    await writeAudit(
      tx,
      { id: null, email: who },
      { ...entry(i), detail: { ...entry(i).detail, ...counts }, result: "ok" },
    );
    return counts;
  });
}

/** `npm run erase -- --dry-run`: the count, without a console session. */
export const countSubjectEvents = (db: Db, input: EraseInput) => countErasure(db, EraseInput.parse(input).subject);
