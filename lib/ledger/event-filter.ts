import { and, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { EVENT_STATUSES, webhookEvent } from "@/db/schema";
import { SOURCES } from "@/lib/providers/types";

const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => {
    const values = (Array.isArray(v) ? v : v === undefined || v === "" ? [] : [v]) as unknown[];
    return values.flatMap((x) => (typeof x === "string" ? x.split(",") : [x])).map((x) => (typeof x === "string" ? x.trim() : x)).filter((x) => x !== "");
  }, z.array(item).max(50));

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
  source: list(z.enum(SOURCES, { error: (i) => `unknown source "${String(i.input)}"` })).default([]),
  type: list(z.string().max(255)).default([]),
  status: list(z.enum(EVENT_STATUSES, { error: (i) => `unknown status "${String(i.input)}"` })).default([]),
  from: instant,
  to: instant,
  q: z.string().trim().max(320).optional(),
});
export type EventFilter = z.infer<typeof EventFilter>;
export type EventFilterInput = z.input<typeof EventFilter>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Search: an event id (any source: a primary-key probe per source), or a customer/object id or
 * email found in the payload (the subject_ids GIN index). Emails are stored lower-cased.
 */
export function searchCondition(q: string): SQL {
  const term = EMAIL.test(q) ? q.toLowerCase() : q;
  const keys = sql.join(SOURCES.map((s) => sql`(${s}, ${q})`), sql`, `);
  return sql`((${webhookEvent.source}, ${webhookEvent.eventId}) in (${keys}) or ${webhookEvent.subjectIds} @> array[${term}]::text[])`;
}

export function filterConditions(f: EventFilter): SQL[] {
  const where: SQL[] = [];
  if (f.source.length) where.push(inArray(webhookEvent.source, f.source));
  if (f.type.length) where.push(inArray(webhookEvent.eventType, f.type));
  if (f.status.length) where.push(inArray(webhookEvent.status, f.status));
  if (f.from) where.push(gte(webhookEvent.receivedAt, f.from));
  if (f.to) where.push(lt(webhookEvent.receivedAt, f.to));
  if (f.q) where.push(searchCondition(f.q));
  return where;
}

export function filterWhere(f: EventFilter): SQL | undefined {
  const where = filterConditions(f);
  return where.length ? and(...where) : undefined;
}
