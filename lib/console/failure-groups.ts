import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import { ERROR_KINDS, webhookEvent, type ErrorKind } from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";
import { ConflictError } from "@/lib/errors";
import { textProblem } from "@/lib/ledger/params";

/** The groups are counted over at most this many of the newest events of the status (a backward scan of its index). */
export const FAILURE_GROUP_SCAN_CAP = 5_000;
/** Groups returned, largest first; the rest are counted. */
export const FAILURE_GROUP_LIMIT = 100;
export const FAILURE_GROUP_STATUSES = ["dead", "failed"] as const;
/** How much of a message its pattern reads: two messages that differ only past this share a group. */
export const PATTERN_CHARS = 300;
/** A group's requeue reads the messages of its source, type and status: at most this many. */
export const GROUP_CANDIDATE_MAX = 50_000;

/**
 * What makes one failure the same across events, beside source and type: the last attempt's error
 * kind and the message with its ids and numbers taken out (failurePattern).
 */
export const FailureGroupKey = z.object({
  errorKind: z.enum(ERROR_KINDS),
  pattern: z.string().superRefine((v, ctx) => {
    const problem = textProblem(v, PATTERN_CHARS);
    if (problem) ctx.addIssue({ code: "custom", message: `the error pattern ${problem}` });
  }),
});
export type FailureGroupKey = z.infer<typeof FailureGroupKey>;

// In order: a UUID; a provider id such as sub_1Mow… or evt_123 (a lower-case prefix, then a body with a
// digit or a capital, so previous_attributes stays), its prefix kept; any other word with a digit (a count,
// a status code, a timestamp's parts). In JavaScript, not SQL: PostgreSQL's regexp_replace is slow per call, and a
// page runs these on every message it groups.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const PREFIXED_ID = /\b([a-z][a-z0-9]{0,11}_)(?=[A-Za-z0-9]*[0-9A-Z])[A-Za-z0-9]+/g;
const NUMBERED = /[A-Za-z0-9]*[0-9][A-Za-z0-9]*/g;
const SPACES = /\s+/g;

/** The message as its group knows it: "Subscription sub_123 missing" and "… sub_456 …" read the same. */
export function failurePattern(message: string | null): string {
  return (message ?? "")
    .slice(0, PATTERN_CHARS)
    .replace(UUID, "…")
    .replace(PREFIXED_ID, "$1…")
    .replace(NUMBERED, "#")
    .replace(SPACES, " ")
    .trim();
}

/**
 * The last attempt's error kind, read off the event's last_error: the statement that records a failed
 * attempt (lib/ledger/process.ts) writes its message with a "permanent: " prefix exactly when the attempt's
 * error_kind is permanent. A reaped lease (a crash) is transient. No attempt-table probe per event.
 */
export function errorKindOfMessage(message: string | null): ErrorKind {
  return message?.startsWith("permanent:") ? "permanent" : "transient";
}

const messageSql = (column: SQL) => sql`left(coalesce(${column}, ''), ${PATTERN_CHARS})`;

/**
 * The events of `where` (a condition on webhook_event, unaliased) that belong to `group`, as a condition
 * naming them and their message as read, so a message rewritten since (the event failed anew) no longer
 * matches. Found by reading the candidates' messages: at most GROUP_CANDIDATE_MAX; `limit` members.
 */
export async function groupMembersCondition(
  db: Db,
  where: SQL | undefined,
  group: FailureGroupKey,
  limit: number,
): Promise<SQL> {
  const candidates = rowsOf<{ source: string; event_id: string; message: string }>(
    await db.execute(sql`
      select source, event_id, ${messageSql(sql`${webhookEvent.lastError}`)} as message
      from ${webhookEvent}
      where ${where ?? sql`true`}
      limit ${GROUP_CANDIDATE_MAX + 1}`),
  );
  if (candidates.length > GROUP_CANDIDATE_MAX)
    throw new ConflictError(
      `more than ${GROUP_CANDIDATE_MAX.toLocaleString("en")} events share this group's source, type and status; ` +
        "requeue them from Events, a time window at a time",
    );
  const members = candidates
    .filter((c) => errorKindOfMessage(c.message) === group.errorKind && failurePattern(c.message) === group.pattern)
    .slice(0, limit);
  if (members.length === 0) return sql`false`;
  const col = (f: (m: (typeof members)[number]) => string) => pgArray(members.map(f), "text");
  return sql`(${webhookEvent.source}, ${webhookEvent.eventId}, ${messageSql(sql`${webhookEvent.lastError}`)}) in (
    select * from unnest(${col((m) => m.source)}, ${col((m) => m.event_id)}, ${col((m) => m.message)}))`;
}

export const ListFailureGroupsInput = z.object({ status: z.enum(FAILURE_GROUP_STATUSES).default("dead") });

export interface FailureGroup extends FailureGroupKey {
  source: string;
  eventType: string;
  /** The oldest event's message as it was written, in full. */
  example: string;
  count: number;
  /** The earliest first failed attempt of its events (a requeue does not move it), and the latest attempt. */
  firstSeen: Date;
  lastSeen: Date;
  /** Up to three of its newest event ids (the source is the group's). */
  exampleEventIds: string[];
}

export interface FailureGroups {
  groups: FailureGroup[];
  /** Events read: the newest FAILURE_GROUP_SCAN_CAP at most. */
  scanned: number;
  /** More events of the status exist than were read: counts are lower bounds. */
  capped: boolean;
  /** Groups found, of which `groups` holds the largest FAILURE_GROUP_LIMIT. */
  totalGroups: number;
}

interface Scanned {
  source: string;
  event_id: string;
  event_type: string;
  message: string;
  /** Epoch ms of the last attempt (leased_at), else of arrival. */
  seen: number;
  /** Epoch ms of arrival. */
  received: number;
}

type Building = Omit<FailureGroup, "example" | "firstSeen" | "lastSeen" | "exampleEventIds"> & {
  first: Scanned;
  firstSeen: number;
  lastSeen: number;
  newest: Scanned[];
  members: Scanned[];
};

/**
 * Dead (or retrying) events grouped by source, type, the last attempt's error kind and the message's
 * pattern, largest first. Bounded whatever the table's size: the newest events of the status through
 * webhook_event_status_idx, then one primary-key probe per shown group for its example in full.
 */
export async function listFailureGroups(
  db: Db,
  actor: Actor | undefined,
  input: z.input<typeof ListFailureGroupsInput> = {},
): Promise<FailureGroups> {
  authorize(actor, "events.read");
  const { status } = ListFailureGroupsInput.parse(input);
  const rows = rowsOf<Scanned>(
    await db.execute(sql`
      select source, event_id, event_type, ${messageSql(sql`last_error`)} as message,
             (extract(epoch from coalesce(leased_at, received_at)) * 1000)::float8 as seen,
             (extract(epoch from received_at) * 1000)::float8 as received
      from webhook_event
      where status = ${status}
      order by received_at desc, event_id desc, source desc
      limit ${FAILURE_GROUP_SCAN_CAP + 1}`),
  );
  const capped = rows.length > FAILURE_GROUP_SCAN_CAP;
  const scanned = rows.slice(0, FAILURE_GROUP_SCAN_CAP);
  const byKey = new Map<string, Building>();
  // Newest first: the first three rows of a group are its newest examples, the last one its oldest.
  for (const r of scanned) {
    const errorKind = errorKindOfMessage(r.message);
    const pattern = failurePattern(r.message);
    const key = JSON.stringify([r.source, r.event_type, errorKind, pattern]);
    const seen = Number(r.seen);
    const g = byKey.get(key);
    if (!g) {
      const fresh = { source: r.source, eventType: r.event_type, errorKind, pattern, count: 1, first: r };
      byKey.set(key, { ...fresh, firstSeen: seen, lastSeen: seen, newest: [r], members: [r] });
      continue;
    }
    g.count++;
    g.members.push(r);
    if (seen <= g.firstSeen) [g.firstSeen, g.first] = [seen, r];
    g.lastSeen = Math.max(g.lastSeen, seen);
    if (g.newest.length < 3) g.newest.push(r);
  }
  const shown = [...byKey.values()]
    .sort((a, b) => b.count - a.count || b.lastSeen - a.lastSeen)
    .slice(0, FAILURE_GROUP_LIMIT);
  const full = await fullMessages(
    db,
    shown.map((g) => g.first),
  );
  const firstFailed = await firstFailures(
    db,
    shown.map((g) => g.members),
  );
  return {
    groups: shown.map(({ first, newest, firstSeen, lastSeen, members: _, ...g }, i) => ({
      ...g,
      example: full.get(`${first.source}\u0000${first.event_id}`) ?? first.message,
      firstSeen: new Date(firstFailed[i] ?? firstSeen),
      lastSeen: new Date(lastSeen),
      exampleEventIds: newest.map((r) => r.event_id),
    })),
    scanned: scanned.length,
    capped,
    totalGroups: byKey.size,
  };
}

/**
 * Per group, the earliest first failed attempt of its members (epoch ms), or undefined where no attempt row
 * is left. An event's first attempt comes after its arrival, so after the oldest member's first failure
 * only members that arrived before it can hold an earlier one: two small probes, not one per member.
 */
async function firstFailures(db: Db, groups: readonly (readonly Scanned[])[]): Promise<(number | undefined)[]> {
  const oldest = groups.map((g) => g.reduce((a, b) => (Number(b.received) < Number(a.received) ? b : a)));
  const first = await probeFirstFailures(
    db,
    oldest.map((m, g) => ({ g, m })),
  );
  const earlier = groups.flatMap((members, g) =>
    members.filter((m) => m !== oldest[g] && Number(m.received) < (first.get(g) ?? Infinity)).map((m) => ({ g, m })),
  );
  const second = await probeFirstFailures(db, earlier);
  return groups.map((_, g) => {
    const found = [first.get(g), second.get(g)].filter((v) => v !== undefined);
    return found.length > 0 ? Math.min(...found) : undefined;
  });
}

/** The earliest first failed attempt among each group's given members, by the attempt table's key. */
async function probeFirstFailures(db: Db, members: readonly { g: number; m: Scanned }[]): Promise<Map<number, number>> {
  if (members.length === 0) return new Map();
  const rows = rowsOf<{ g: number; at: number }>(
    await db.execute(sql`
      select k.g, min(a.at) as at
      from unnest(${pgArray(
        members.map((x) => x.g),
        "int",
      )}, ${pgArray(
        members.map((x) => x.m.source),
        "text",
      )}, ${pgArray(
        members.map((x) => x.m.event_id),
        "text",
      )}) as k(g, source, event_id)
      cross join lateral (
        select (extract(epoch from a.started_at) * 1000)::float8 as at
        from webhook_attempt a
        where a.source = k.source and a.event_id = k.event_id and a.outcome = 'failed'
        order by a.number, a.id
        limit 1
      ) a
      group by k.g`),
  );
  return new Map(rows.map((r) => [Number(r.g), Number(r.at)]));
}

/** last_error in full for a few events, by primary key (the scan read only the part a pattern needs). */
async function fullMessages(db: Db, keys: readonly Scanned[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = rowsOf<{ source: string; event_id: string; last_error: string | null }>(
    await db.execute(sql`
      select e.source, e.event_id, e.last_error
      from unnest(${pgArray(
        keys.map((k) => k.source),
        "text",
      )}, ${pgArray(
        keys.map((k) => k.event_id),
        "text",
      )}) as k(source, event_id)
      join webhook_event e on e.source = k.source and e.event_id = k.event_id`),
  );
  return new Map(rows.map((r) => [`${r.source}\u0000${r.event_id}`, r.last_error ?? ""]));
}

/** What the dead list shows beside each event: the last attempt's kind and when, and the budget spent. */
export interface FailureDetail {
  errorKind: ErrorKind;
  /** Attempts since the retry budget last restarted (a requeue restarts it): "n of WORKER_MAX_ATTEMPTS". */
  attemptsUsed: number;
  lastAttemptAt: Date | null;
}

/** For a page of events (≤ 200 keys): one primary-key probe each. */
export async function getFailureDetails(
  db: Db,
  actor: Actor | undefined,
  keys: readonly { source: string; eventId: string }[],
): Promise<(key: { source: string; eventId: string }) => FailureDetail | undefined> {
  authorize(actor, "events.read");
  if (keys.length > 200) throw new RangeError("at most 200 keys at a time");
  if (keys.length === 0) return () => undefined;
  const rows = rowsOf<{ source: string; event_id: string; message: string | null; used: number; at: number | null }>(
    await db.execute(sql`
      select e.source, e.event_id, left(e.last_error, 20) as message, (e.attempts - e.attempts_base)::int as used,
             (extract(epoch from e.leased_at) * 1000)::float8 as at
      from unnest(${pgArray(
        keys.map((k) => k.source),
        "text",
      )}, ${pgArray(
        keys.map((k) => k.eventId),
        "text",
      )}) as k(source, event_id)
      join webhook_event e on e.source = k.source and e.event_id = k.event_id`),
  );
  const byKey = new Map(
    rows.map((r) => [
      `${r.source}\u0000${r.event_id}`,
      {
        errorKind: errorKindOfMessage(r.message),
        attemptsUsed: Number(r.used),
        lastAttemptAt: r.at === null ? null : new Date(Number(r.at)),
      },
    ]),
  );
  return (key) => byKey.get(`${key.source}\u0000${key.eventId}`);
}
