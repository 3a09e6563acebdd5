import { gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { EVENT_STATUSES, webhookEvent } from "@/db/schema";
import { SOURCE_SLUG } from "@/db/schema/sources";
import { printable, textProblem } from "./params";
import { pgArray } from "@/db/pg-array";

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
    // <input type="datetime-local"> sends no zone: read it as UTC, like every time the console shows.
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v) ? `${v}Z` : v;
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) {
      ctx.addIssue({ code: "custom", message: `"${v}" is not a date and time (use 2026-11-29T10:00Z)` });
      return z.NEVER;
    }
    return d;
  })
  .optional();

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
});
export type EventFilter = z.infer<typeof EventFilter>;
export type EventFilterInput = z.input<typeof EventFilter>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const searchTerm = (q: string) => (EMAIL.test(q) ? q.toLowerCase() : q);

/** Up to this many subject matches, a search becomes a list of primary keys. */
export const SEARCH_PROBE_LIMIT = 1000;

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
 * Search: an event id (any source: a primary-key probe per source), or a customer/object id or
 * email found in the payload (the subject_ids GIN index). Emails are stored lower-cased.
 */
function searchCondition(q: string): SQL {
  const term = searchTerm(q);
  return sql`((${webhookEvent.source}, ${webhookEvent.eventId}) in (select source, ${q}::text from ${SOURCES_WITH_EVENTS} as known)
    or ${webhookEvent.subjectIds} @> array[${term}]::text[])`;
}

/** Every key but the search, which needs a database probe first (resolvedConditions). */
function plainConditions(f: EventFilter): SQL[] {
  const where: SQL[] = [];
  if (f.source.length) where.push(inArray(webhookEvent.source, f.source));
  if (f.type.length) where.push(inArray(webhookEvent.eventType, f.type));
  if (f.status.length) where.push(inArray(webhookEvent.status, f.status));
  if (f.from) where.push(gte(webhookEvent.receivedAt, f.from));
  if (f.to) where.push(lt(webhookEvent.receivedAt, f.to));
  return where;
}

/**
 * The filter as SQL conditions, the search resolved against the GIN index first. PostgreSQL cannot tell how
 * rare one customer id is among subject_ids, guesses 0.5 % of rows, and walks the received index
 * expecting quick hits (the whole table, for an id on seven events). A capped probe of the GIN
 * index settles it: a rare id becomes a short list of primary keys; a common one (> the cap) keeps
 * the general form, whose walk then finds its matches early.
 */
export async function resolvedConditions(db: Db, f: EventFilter): Promise<SQL[]> {
  const where = plainConditions(f);
  if (!f.q) return where;
  const keys = rowsOf<{ source: string; event_id: string }>(
    await db.execute(
      sql`select source, event_id from webhook_event where subject_ids @> array[${searchTerm(f.q)}]::text[] limit ${SEARCH_PROBE_LIMIT + 1}`,
    ),
  );
  if (keys.length > SEARCH_PROBE_LIMIT) return [...where, searchCondition(f.q)];
  const sources = keys.map((k) => k.source);
  const ids = keys.map((k) => k.event_id);
  where.push(
    sql`(${webhookEvent.source}, ${webhookEvent.eventId}) in (
      select * from unnest(${pgArray(sources, "text")}, ${pgArray(ids, "text")})
      union all select source, ${f.q}::text from ${SOURCES_WITH_EVENTS} as known)`,
  );
  return where;
}
