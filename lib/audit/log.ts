import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { auditLog, type AuditEntry } from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";
import { ValidationError } from "@/lib/errors";

export const AUDIT_RESULTS = ["ok", "refused", "error"] as const;
export type AuditResult = (typeof AUDIT_RESULTS)[number];

// The cursor keeps `at` as PostgreSQL's own text: microseconds that a JS Date would round away.
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;
const Cursor = z.tuple([
  z.string().max(64).regex(PG_TIMESTAMP),
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
]);
type CursorKey = z.infer<typeof Cursor>;

export function encodeAuditCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeAuditCursor(value: string): CursorKey {
  try {
    return Cursor.parse(JSON.parse(Buffer.from(value, "base64url").toString("utf8")));
  } catch {
    throw new ValidationError(
      "This page link is damaged or was edited; start again from the newest entries.",
      "cursor",
    );
  }
}

// "2026-11-29", "2026-11-29 10:00", "2026-11-29T10:00:05", an optional trailing Z: always read as UTC.
const MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?Z?$/i;

/**
 * One end of a time range typed in the console, 24 h UTC. A "start" is the first instant of what was
 * typed; an "end" is exclusive and covers all of it: "to 2026-11-29" includes that whole day, "to 10:05"
 * the whole minute.
 */
export function parseUtcBound(value: string, side: "start" | "end", what: string): Date {
  const m = MOMENT.exec(value.trim());
  const hint = `${what}: "${value.slice(0, 40)}" is not a UTC date and time (use 2026-11-29 or 2026-11-29 14:30)`;
  if (!m) throw new ValidationError(hint, what.toLowerCase());
  const [, y, mo, d, h, mi, s] = m.map((x) => (x === undefined ? undefined : Number(x)));
  const ms = Date.UTC(y!, mo! - 1, d!, h ?? 0, mi ?? 0, s ?? 0);
  const date = new Date(ms);
  // Date.UTC rolls 2026-02-30 over to March: a date that does not exist is a typo, not a query.
  if (
    date.getUTCFullYear() !== y ||
    date.getUTCMonth() !== mo! - 1 ||
    date.getUTCDate() !== d ||
    (h ?? 0) > 23 ||
    (mi ?? 0) > 59 ||
    (s ?? 0) > 59
  )
    throw new ValidationError(hint, what.toLowerCase());
  if (side === "start") return date;
  const step = s !== undefined ? 1000 : mi !== undefined ? 60_000 : 86_400_000;
  return new Date(ms + step);
}

/** Why a URL value cannot reach a query as text (PostgreSQL refuses U+0000; a lone surrogate is no UTF-8). */
function textProblem(value: string, max: number): string | undefined {
  if (value.length > max) return `is longer than ${max} characters`;
  if (value.includes("\u0000")) return "contains U+0000 (NUL)";
  if (!value.isWellFormed()) return "is not valid UTF-8";
  return undefined;
}

const text = (what: string, max: number) =>
  z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .superRefine((v, ctx) => {
      const problem = v === undefined ? undefined : textProblem(v, max);
      if (problem) ctx.addIssue({ code: "custom", message: `${what} ${problem}` });
    });

export const ListAuditInput = z.object({
  /** Exact actor email ("anonymous" and "system" are actors too); emails are stored lower-cased. */
  actor: text("the actor", 320)
    .transform((v) => v?.toLowerCase())
    .optional(),
  action: text("the action", 100).optional(),
  result: z
    .string()
    .trim()
    .transform((v, ctx) => {
      if (v === "") return undefined;
      const known = AUDIT_RESULTS.find((r) => r === v);
      if (!known)
        ctx.addIssue({ code: "custom", message: `unknown outcome "${v.slice(0, 20)}" (ok, refused or error)` });
      return known;
    })
    .optional(),
  /** UTC, inclusive: "2026-11-29", "2026-11-29 10:00". */
  from: z.string().max(40).optional(),
  /** UTC, inclusive of the day, minute or second given. */
  to: z.string().max(40).optional(),
  /** Rows older than this position (the "Older" link). */
  before: z.string().max(200).optional(),
  /** Rows newer than this position (the "Newer" link); wins over `before` if both are given. */
  after: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListAuditInput = z.input<typeof ListAuditInput>;

export interface AuditPage {
  rows: AuditEntry[];
  /** Older entries exist: pass as `before`. */
  olderCursor?: string;
  /** Newer entries exist (this is not the newest page): pass as `after`. */
  newerCursor?: string;
}

function parseInput(input: ListAuditInput) {
  const parsed = ListAuditInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(issue?.message ?? "invalid filter", issue?.path.join("."));
  }
  return parsed.data;
}

/**
 * The audit log, newest first, keyset-paged on (at, id) in both directions: `at` is the writing
 * transaction's start, so two concurrent writers can commit ids out of `at` order; id breaks ties.
 * Each filter has an index that leads with it and continues (at, id), so a page reads a page of rows.
 */
export async function listAudit(db: Db, actor: Actor | undefined, input: ListAuditInput = {}): Promise<AuditPage> {
  authorize(actor, "audit.read");
  const i = parseInput(input);
  const from = i.from ? parseUtcBound(i.from, "start", "From") : undefined;
  const to = i.to ? parseUtcBound(i.to, "end", "To") : undefined;
  if (from && to && from >= to) throw new ValidationError("“From” must be before “To”.", "from");

  const where: SQL[] = [];
  if (i.actor) where.push(eq(auditLog.actorEmail, i.actor));
  if (i.action) where.push(eq(auditLog.action, i.action));
  if (i.result) where.push(eq(auditLog.result, i.result));
  if (from) where.push(gte(auditLog.at, from));
  if (to) where.push(lt(auditLog.at, to));

  const back = i.after !== undefined;
  const cursor = i.after ?? i.before;
  const key = sql`(${auditLog.at}, ${auditLog.id})`;
  if (cursor !== undefined) {
    const [at, id] = decodeAuditCursor(cursor);
    where.push(
      back ? sql`${key} > (${at}::timestamptz, ${id}::bigint)` : sql`${key} < (${at}::timestamptz, ${id}::bigint)`,
    );
  }
  // Walking towards newer entries scans ascending; the page is put back in newest-first order below.
  const dir = back ? sql`asc` : sql`desc`;
  const rows = await db
    .select({ entry: auditLog, ts: sql<string>`${auditLog.at}::text` })
    .from(auditLog)
    .where(where.length ? and(...where) : undefined)
    .orderBy(sql`${auditLog.at} ${dir}, ${auditLog.id} ${dir}`)
    .limit(i.limit + 1);
  const more = rows.length > i.limit;
  // Back at the newest entries: show the full first page rather than the few rows left above the cursor.
  if (back && !more) return listAudit(db, actor, { ...input, after: undefined, before: undefined });
  const page = rows.slice(0, i.limit);
  if (back) page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const cursorOf = (r: (typeof page)[number]) => encodeAuditCursor([r.ts, r.entry.id]);
  const hasOlder = back ? true : more;
  const hasNewer = back ? more : cursor !== undefined;
  return {
    rows: page.map((r) => r.entry),
    olderCursor: hasOlder && last ? cursorOf(last) : undefined,
    newerCursor: hasNewer && first ? cursorOf(first) : undefined,
  };
}

/**
 * The distinct actions recorded, for the filter's menu: a skip scan of the (action, at, id) index, one
 * probe per action rather than a pass over the log.
 */
export async function listAuditActions(db: Db, actor: Actor | undefined): Promise<string[]> {
  authorize(actor, "audit.read");
  const rows = rowsOf<{ action: string }>(
    await db.execute(sql`
      with recursive a(action) as (
        (select action from audit_log order by action limit 1)
        union all
        select (select l.action from audit_log l where l.action > a.action order by l.action limit 1)
        from a
        where a.action is not null
      )
      select action from a where action is not null limit 500`),
  );
  return rows.map((r) => r.action);
}
