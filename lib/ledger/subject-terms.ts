import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Db, type Tx } from "@/db/client";
import { pgArrays } from "@/db/pg-array";
import type { TermField } from "@/db/schema";
import { idAt, isObject } from "@/lib/providers/types";
import { payloadSql } from "@/db/payload";
import type { EventKey } from "./types";

/** A shorter prefix would match much of the directory: below this, search is exact only. */
export const PREFIX_MIN_CHARS = 3;
/** A prefix search follows this many directory terms at most (the first in byte order). */
export const PREFIX_TERM_LIMIT = 50;

// An id's field, from its shape (first match wins; the rest are "id"). Each source is a regex valid in JS and
// PostgreSQL alike, and holds no quote: the SQL below inlines them.
const ID_SHAPES: readonly (readonly [string, TermField])[] = [
  ["@", "email"],
  ["^(cus|ctm|cust)_", "customer id"],
  ["^evt_", "event id"],
  ["^sub_", "subscription id"],
  ["^(in|inv)_", "invoice id"],
];

const SHAPE_REGEXES = ID_SHAPES.map(([pattern, field]) => [new RegExp(pattern), field] as const);

/** The field a subject id is shown as, from its shape, when the directory says nothing better. */
export function fieldOfSubject(subject: string): TermField {
  for (const [pattern, field] of SHAPE_REGEXES) if (pattern.test(subject)) return field;
  return "id";
}

/**
 * What the directory holds of a payload's ids: those that name a customer (its id, email, subscription). The rest
 * (event, invoice, charge, price ids…) are one-per-event or shared by everyone, typed whole when typed at all, and
 * found exactly through subject_ids; each would cost every settle a lookup (or a new row) for no prefix anyone types.
 */
export const DIRECTORY_ID_FIELDS: readonly TermField[] = ["customer id", "subscription id", "email"];

/** fieldOfSubject as SQL text over `column` (the worker's insert, and the benchmark's seed). */
export const termFieldSql = (column: string): string =>
  `case ${ID_SHAPES.map(([pattern, field]) => `when ${column} ~ '${pattern}' then '${field}'`).join(" ")} else 'id' end`;

/** A term found in a payload beside the ids: `text` is what is searched, `value` what the match shows. */
export interface FoundTerm {
  text: string;
  value: string;
  subject: string;
  field: TermField;
}

const MAX_DEPTH = 8;
const MAX_TERMS = 64;
const MAX_NAME = 200;
// Control characters, U+0000 included: no name a person types.
const CONTROL = /[\u0000-\u001f\u007f]/;
const SPACES = /\s+/g;

/** A name as a person would type it: one space between words, no control character, no email. */
const text = (v: unknown): string | undefined => {
  if (typeof v !== "string") return undefined;
  const t = v.trim().replace(SPACES, " ");
  return t.length > 0 && t.length <= MAX_NAME && !CONTROL.test(t) && t.isWellFormed() && !t.includes("@")
    ? t
    : undefined;
};

/** "Jenny Rosen", from `name` or from `first_name` + `last_name` (Shopify). */
function personName(o: Record<string, unknown>): string | undefined {
  const name = text(o.name);
  if (name) return name;
  const joined = [text(o.first_name), text(o.last_name)].filter(Boolean).join(" ");
  return joined ? text(joined) : undefined;
}

/** Shopify ids can pass 2^53, which JSON.parse rounds; the GraphQL id keeps them exact. */
function exactId(o: Record<string, unknown>): string | undefined {
  const gid = typeof o.admin_graphql_api_id === "string" ? /\/(\d+)$/.exec(o.admin_graphql_api_id) : null;
  return gid?.[1] ?? idAt(o, "id");
}

const CUSTOMER_ID = /^(cus|ctm)_/;

/** The object is a customer: under a `customer` key (Shopify, Paddle includes), Stripe's `object: "customer"`, a cus_/ctm_ id. */
function customerIdOf(o: Record<string, unknown>, key: string | undefined): string | undefined {
  if (key === "customer") return exactId(o);
  if (o.object === "customer") return idAt(o, "id");
  return typeof o.id === "string" && CUSTOMER_ID.test(o.id) ? o.id : undefined;
}

/** An object that names its customer by id beside the name: Stripe invoices, charges and checkout sessions. */
function namedReference(o: Record<string, unknown>): { subject: string; name: string } | undefined {
  const subject = typeof o.customer === "string" ? idAt(o, "customer") : idAt(o, "customer_id");
  if (!subject) return undefined;
  const details = [o.customer_details, o.billing_details].find(isObject);
  const name = text(o.customer_name) ?? text(o.user_name) ?? (details ? text(details.name) : undefined);
  return name ? { subject, name } : undefined;
}

/**
 * The names, logins and customer ids a payload carries, for prefix search: a customer's name (and each later
 * word of it, so "Rosen" finds "Jenny Rosen") maps to the customer's id, found beside it. By shape, not by
 * provider: Stripe `customer_name` and customer objects, Shopify `customer.first_name`/`last_name`, Paddle's
 * customer `name`, GitHub's `login`. Bounded in depth and count: payloads are attacker-sized.
 */
export function extractSubjectTerms(payload: unknown): FoundTerm[] {
  const out = new Map<string, FoundTerm>();
  visitTerms(out, payload, undefined, 0);
  return [...out.values()];
}

// Module-level functions, not closures made per call (tsx names each closure it creates, esbuild's keepNames, with a
// defineProperty call), and Object.keys rather than for…in: the worker walks every payload it settles, so the walk
// allocates nothing it can avoid (npm run bench:subjects times it).
type Found = Map<string, FoundTerm>;

function addTerm(out: Found, t: FoundTerm): void {
  if (out.size < MAX_TERMS && t.subject.length <= 320) out.set(`${t.text.toLowerCase()}\u0000${t.subject}`, t);
}

function addName(out: Found, name: string, subject: string): void {
  const words = name.split(" ");
  for (let i = 0; i < Math.min(words.length, 4); i++)
    addTerm(out, { text: words.slice(i).join(" "), value: name, subject, field: "name" });
}

function visitTerms(out: Found, node: unknown, key: string | undefined, depth: number): void {
  if (depth > MAX_DEPTH || out.size >= MAX_TERMS) return;
  if (Array.isArray(node)) {
    for (const item of node) visitTerms(out, item, key, depth + 1);
    return;
  }
  if (!isObject(node)) {
    const login = key === "login" ? text(node) : undefined;
    if (login && login.length <= 39) addTerm(out, { text: login, value: login, subject: login, field: "login" });
    if ((key === "customer" || key === "customer_id") && (typeof node === "string" || typeof node === "number")) {
      const id = idAt({ id: node }, "id");
      if (id) addTerm(out, { text: id, value: id, subject: id, field: "customer id" });
    }
    return;
  }
  const customer = customerIdOf(node, key);
  if (customer) {
    addTerm(out, { text: customer, value: customer, subject: customer, field: "customer id" });
    const name = personName(node);
    if (name) addName(out, name, customer);
  }
  const ref = namedReference(node);
  if (ref) addName(out, ref.name, ref.subject);
  for (const k of Object.keys(node)) visitTerms(out, node[k], k, depth + 1);
}

// A btree entry holds ~2.7 kB; a term and its subject stay well inside.
const MAX_ENTRY_BYTES = 2000;

/** What the directory needs of an event: its payload and the ids its row holds (read under the row's lock). */
export interface TermSource {
  payload: unknown;
  subjectIds: readonly string[];
}

/**
 * Adds the directory terms of these events: their customer ids, emails and subscription ids (DIRECTORY_ID_FIELDS,
 * by shape) and what extractSubjectTerms finds in the payload (which wins for the same term and subject). One statement, rows in
 * (term, subject) order so that two batches adding the same new terms wait on each other, never deadlock.
 * Never in the claim. The ids are classified here, not in SQL: a regex per id per shape was most of this
 * statement's time (bench:worker).
 *
 * The rule that keeps an erased subject out of the directory, whatever the interleaving: terms are written only in
 * a transaction that holds a lock on the event's row and found it still as read (the settle's or the failure's update
 * on its lease; the rebuild's FOR SHARE), and an erasure, which locks those rows first, deletes terms in a statement
 * of its own after that (lib/retention/erase.ts). A writer that locked first has committed when that statement
 * starts, so it sees the terms; one that comes after finds the lease gone or the payload redacted.
 *
 */
export async function recordSubjectTerms(db: Db | Tx, events: readonly TermSource[]): Promise<void> {
  const rows: TermRow[] = [];
  for (const e of events) {
    for (const subject of e.subjectIds) {
      const field = fieldOfSubject(subject);
      if (DIRECTORY_ID_FIELDS.includes(field)) rows.push({ text: subject, value: subject, subject, field, rank: 1 });
    }
    for (const found of extractSubjectTerms(e.payload)) rows.push({ ...found, rank: 0 });
  }
  if (rows.length === 0) return;
  await db.execute(sql`
    with found as (
      select lower(x.text) as term, x.subject, x.field, x.value, x.rank
      from unnest(${pgArrays([
        [rows.map((r) => r.text), "text"],
        [rows.map((r) => r.subject), "text"],
        [rows.map((r) => r.field), "text"],
        [rows.map((r) => r.value), "text"],
        [rows.map((r) => r.rank), "int"],
      ])}) as x(text, subject, field, value, rank)
    )
    insert into subject_term (term, subject, field, value)
    select distinct on (term collate "C", subject collate "C") term, subject, field, value
    from found
    where term <> '' and octet_length(term) + octet_length(subject) <= ${MAX_ENTRY_BYTES}
    order by term collate "C", subject collate "C", rank
    on conflict do nothing`);
}

type TermRow = FoundTerm & { rank: number };

export interface DirectoryTerm {
  term: string;
  subject: string;
  field: TermField;
  value: string;
}

// In byte order nothing sorts after U+10FFFF, so [p, p + U+10FFFF) holds every term that starts with p.
const LAST = "\u{10FFFF}";

/** The directory lookup, exported for the EXPLAIN test: a range scan of the primary key, in its order. */
export function findTermsQuery(prefix: string, limit: number): SQL {
  return sql`
    select term, subject, field, value
    from subject_term
    where term >= lower(${prefix}) and term < lower(${prefix}) || ${LAST}
    order by term, subject
    limit ${limit}`;
}

/**
 * The first `limit` directory terms that start with `prefix` (lower-cased as the terms were), in byte order.
 * No LIKE: `%` and `_` are plain characters here.
 */
export async function findTerms(db: Db, prefix: string, limit: number): Promise<DirectoryTerm[]> {
  return rowsOf<DirectoryTerm>(await db.execute(findTermsQuery(prefix, limit)));
}

/**
 * One page of filling the directory for events that ended before it existed (or a directory rebuilt): the
 * events after `after` in primary-key order, `limit` of them. Returns where the next page starts; undefined
 * once every event has been seen. Re-runnable: terms already there are kept.
 */
export async function backfillSubjectTerms(
  db: Db,
  opts: { after?: EventKey; limit?: number } = {},
): Promise<{ events: number; next?: EventKey }> {
  const limit = opts.limit ?? 500;
  const after = opts.after ? sql`where (b.source, b.event_id) > (${opts.after.source}, ${opts.after.eventId})` : sql``;
  // The bodies read under a share lock, held until the terms are in (the rule above): an erasure waits for the page.
  const rows = await db.transaction(async (tx) => {
    const page = rowsOf<EventKey & TermSource>(
      await tx.execute(sql`
        select b.source, b.event_id as "eventId", ${payloadSql("b")} as payload, b.subject_ids as "subjectIds"
        from webhook_event_body b ${after}
        order by b.source, b.event_id
        limit ${limit}
        for share`),
    );
    await recordSubjectTerms(tx, page);
    return page;
  });
  const last = rows[rows.length - 1];
  return {
    events: rows.length,
    next: rows.length === limit && last ? { source: last.source, eventId: last.eventId } : undefined,
  };
}
