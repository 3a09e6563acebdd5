import { eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { EVENT_STATUSES, webhookEvent, type TermField } from "@/db/schema";
import { SOURCE_SLUG } from "@/db/schema/sources";
import { printable, textProblem } from "@/lib/ledger/params";
import { pgArray } from "@/db/pg-array";
import { fieldOfSubject, findTerms, PREFIX_MIN_CHARS, PREFIX_TERM_LIMIT } from "@/lib/ledger/subject-terms";

const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => {
    const values = (Array.isArray(v) ? v : v === undefined || v === "" ? [] : [v]) as unknown[];
    return values
      .flatMap((x) => (typeof x === "string" ? x.split(",") : [x]))
      .map((x) => (typeof x === "string" ? x.trim() : x))
      .filter((x) => x !== "");
  }, z.array(item).max(50));

/** Text that reaches a query as a parameter: PostgreSQL's text refuses U+0000, and a lone surrogate is not UTF-8. */
const queryText = (what: string, max: number) =>
  z.string().superRefine((v, ctx) => {
    const problem = textProblem(v, max);
    if (problem) ctx.addIssue({ code: "custom", message: `${what} ${problem}` });
  });

const instant = z
  .string()
  .trim()
  .transform((v, ctx) => {
    if (v === "") return undefined;
    // A time typed without a zone ("2026-11-29 10:00", or datetime-local's T form) is UTC, like every time
    // the console shows; a date alone is its midnight UTC.
    const local = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(v);
    const iso = local ? `${v.replace(" ", "T")}${v.length === 10 ? "T00:00" : ""}Z` : v;
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) {
      ctx.addIssue({ code: "custom", message: `"${v}" is not a date and time (use 2026-11-29 10:00, UTC)` });
      return z.NEVER;
    }
    return d;
  })
  .optional();

export const TEST_FILTERS = ["only", "hide"] as const;

/** The ledger filter behind the events page, its bulk requeue and the benchmark; every key comes from the URL. */
export const EventFilter = z.object({
  source: list(
    z.string().regex(SOURCE_SLUG, { error: (i) => `"${printable(String(i.input))}" is not a source slug` }),
  ).default([]),
  type: list(queryText("an event type", 255)).default([]),
  status: list(z.enum(EVENT_STATUSES, { error: (i) => `unknown status "${String(i.input)}"` })).default([]),
  from: instant,
  to: instant,
  q: z.string().trim().pipe(queryText("the search", 320)).optional(),
  /** Test events from the console (lib/providers/test-marker.ts): only them, or none of them; absent: both. */
  test: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .enum(TEST_FILTERS, { error: (i) => `"${printable(String(i.input))}" is not a test filter (only or hide)` })
      .optional(),
  ),
});
export type EventFilter = z.infer<typeof EventFilter>;
export type EventFilterInput = z.input<typeof EventFilter>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const searchTerm = (q: string) => (EMAIL.test(q) ? q.toLowerCase() : q);

/**
 * Up to this many events, a search becomes a list of primary keys. A prefix follows up to PREFIX_TERM_LIMIT
 * subjects (a thousand events for fifty customers of twenty); past the cap the ids are ones many events share,
 * and the walk of the received index finds their matches early.
 */
export const SEARCH_PROBE_LIMIT = 5000;

/** How a row matched the search. */
export interface SearchMatch {
  /** "event id", "customer id", "email", "name", "login", "subscription id", "invoice id" or "id". */
  field: TermField;
  /** What matched as the payload wrote it: the id or email itself, or a name ("Jenny Rosen"). */
  value: string;
  /** The subject id the match found, when it is not `value` (a name finds its customer's id). */
  subject?: string;
}

/** What a search did, for the page to say. */
export interface SearchInfo {
  q: string;
  /** prefix: ids, emails and names that start with q (and q exactly); exact: q is too short for a prefix. */
  mode: "exact" | "prefix";
  /** Directory terms followed. */
  terms: number;
  /** More than PREFIX_TERM_LIMIT terms start with q: only the first ones were followed. */
  more: boolean;
  /** Why the search is narrower than asked, in words. */
  note?: string;
}

export interface ResolvedSearch extends SearchInfo {
  /** The subject ids searched, best first (q itself, then directory order), each with how it matched. */
  subjects: Map<string, SearchMatch>;
}

/**
 * Every source with an event, read as a skip scan of the primary key (one probe per source, not a
 * pass over the table): an event id is searched under each of them.
 */
const SOURCES_WITH_EVENTS = sql`(
  with recursive s(source) as (
    (select source from webhook_event order by source limit 1)
    union all
    select (select e.source from webhook_event e where e.source > s.source order by e.source limit 1)
    from s where s.source is not null
  )
  select source from s where source is not null)`;

/**
 * q itself (an id or email, exactly) and, from PREFIX_MIN_CHARS characters on, the first PREFIX_TERM_LIMIT
 * directory terms that start with it, case-insensitively: ids, emails, and names (which find their customer).
 */
export async function resolveSearch(db: Db, q: string): Promise<ResolvedSearch> {
  const exact = searchTerm(q);
  const prefix = [...q].length >= PREFIX_MIN_CHARS;
  const found = prefix ? await findTerms(db, q, PREFIX_TERM_LIMIT + 1) : [];
  const more = found.length > PREFIX_TERM_LIMIT;
  const terms = found.slice(0, PREFIX_TERM_LIMIT);
  const own = terms.find((t) => t.subject === exact && t.value === exact);
  const subjects = new Map<string, SearchMatch>([
    [exact, own ? { field: own.field, value: exact } : { field: fieldOfSubject(exact), value: exact }],
  ]);
  for (const t of terms)
    if (!subjects.has(t.subject))
      subjects.set(
        t.subject,
        t.value === t.subject
          ? { field: t.field, value: t.value }
          : { field: t.field, value: t.value, subject: t.subject },
      );
  const note = !prefix
    ? `"${q}" is shorter than ${PREFIX_MIN_CHARS} characters: only ids and emails that are exactly it`
    : more
      ? `more than ${PREFIX_TERM_LIMIT} ids, emails and names start with "${q}": showing the events of the first ${PREFIX_TERM_LIMIT}; type more of it`
      : undefined;
  return { q, mode: prefix ? "prefix" : "exact", terms: terms.length, more, note, subjects };
}

/** The subjects as an array parameter the planner cannot see into: see resolveFilter. */
export const subjectArray = (search: ResolvedSearch): SQL =>
  sql`(select ${pgArray([...search.subjects.keys()], "text")})`;

/** The capped GIN probe, exported for the EXPLAIN test. */
export function searchProbeQuery(search: ResolvedSearch): SQL {
  // The body alone holds the subjects and the key: the probe does not need the lifecycle half of the view.
  return sql`select source, event_id from webhook_event_body where subject_ids && ${subjectArray(search)} limit ${SEARCH_PROBE_LIMIT + 1}`;
}

/** Every key but the search, which needs a database probe first (resolveFilter). */
function plainConditions(f: EventFilter): SQL[] {
  const where: SQL[] = [];
  if (f.source.length) where.push(inArray(webhookEvent.source, f.source));
  if (f.type.length) where.push(inArray(webhookEvent.eventType, f.type));
  if (f.status.length) where.push(inArray(webhookEvent.status, f.status));
  if (f.from) where.push(gte(webhookEvent.receivedAt, f.from));
  if (f.to) where.push(lt(webhookEvent.receivedAt, f.to));
  if (f.test) where.push(eq(webhookEvent.test, f.test === "only"));
  return where;
}

/**
 * The filter as SQL conditions, the search resolved first: q's subjects (resolveSearch), then a capped probe
 * of the GIN index. A handful of rare ids becomes a short list of primary keys; ids many events share (past
 * the cap) keep the general form, whose walk of the received index then finds its matches early. The array is
 * a sub-select on purpose: seeing fifty ids none of which it has statistics for, PostgreSQL guesses a fifth of
 * the table matches and reads it in order expecting early hits (all of it, for a thousand matches); unseen,
 * it takes one id's default guess and the GIN index. An event id is looked up under every source.
 */
export async function resolveFilter(db: Db, f: EventFilter): Promise<{ where: SQL[]; search?: ResolvedSearch }> {
  const where = plainConditions(f);
  if (!f.q) return { where };
  const search = await resolveSearch(db, f.q);
  const byEventId = sql`select source, ${f.q}::text from ${SOURCES_WITH_EVENTS} as known`;
  const keys = rowsOf<{ source: string; event_id: string }>(await db.execute(searchProbeQuery(search)));
  if (keys.length > SEARCH_PROBE_LIMIT) {
    where.push(sql`((${webhookEvent.source}, ${webhookEvent.eventId}) in (${byEventId})
      or ${webhookEvent.subjectIds} && ${subjectArray(search)})`);
    return { where, search };
  }
  where.push(
    sql`(${webhookEvent.source}, ${webhookEvent.eventId}) in (
      select * from unnest(${pgArray(
        keys.map((k) => k.source),
        "text",
      )}, ${pgArray(
        keys.map((k) => k.event_id),
        "text",
      )})
      union all ${byEventId})`,
  );
  return { where, search };
}

/** The filter as SQL conditions (resolveFilter without what the search matched). */
export async function resolvedConditions(db: Db, f: EventFilter): Promise<SQL[]> {
  return (await resolveFilter(db, f)).where;
}
