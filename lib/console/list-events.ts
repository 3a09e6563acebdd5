import { and, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { webhookEvent, type AttemptOutcome, type EventResolution, type EventStatus } from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";
import { pgArray } from "@/db/pg-array";
import {
  EventFilter,
  resolveFilter,
  type EventFilterInput,
  type ResolvedSearch,
  type SearchInfo,
  type SearchMatch,
} from "./event-filter";

export interface EventListRow {
  source: string;
  eventId: string;
  eventType: string;
  status: EventStatus;
  attempts: number;
  lastError: string | null;
  receivedAt: Date;
  entityType: string | null;
  entityId: string | null;
  via: "provider" | "replay";
  /** Sent by the console's test button: never applied. */
  test: boolean;
  /** The provider's version of the entity (seconds, or microseconds for ISO times): the provider's time. */
  entityVersion: number | null;
  /** The last attempt's outcome (null: from before it was recorded, read as settled). */
  outcome: AttemptOutcome | null;
  /** A person's decision on a dead event, and the note they left. */
  resolution: EventResolution | null;
  resolutionNote: string | null;
  /** With a search: which field matched and what (a name finds its customer: `subject` is the id). */
  match?: SearchMatch;
}

export const EVENT_SORTS = ["received_desc", "received_asc"] as const;
export type EventSort = (typeof EVENT_SORTS)[number];

// The cursor keeps received_at as PostgreSQL's own text: microseconds that a JS Date would round away.
// PostgreSQL's timestamptz text, e.g. 2026-11-01 10:00:00.123456+00: anything else is a forged link, not a query.
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;
const Cursor = z.tuple([z.string().max(64).regex(PG_TIMESTAMP), z.string().max(32), z.string().max(255)]);
type CursorKey = z.infer<typeof Cursor>;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor(value: string): CursorKey {
  try {
    return Cursor.parse(JSON.parse(Buffer.from(value, "base64url").toString("utf8")));
  } catch {
    throw new z.ZodError([
      {
        code: "custom",
        path: ["cursor"],
        message: "the page link is damaged; start again from the first page",
        input: value,
      },
    ]);
  }
}

export const ListEventsInput = z.object({
  filter: EventFilter.default(EventFilter.parse({})),
  sort: z.enum(EVENT_SORTS).default("received_desc"),
  /** Opaque keyset position; `back` pages towards the start of the sort order. */
  cursor: z.string().max(600).optional(),
  back: z.boolean().default(false),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListEventsInput = Omit<z.input<typeof ListEventsInput>, "filter"> & { filter?: EventFilterInput };

export interface EventPage {
  rows: EventListRow[];
  /** Further along the sort order, when there is more. */
  nextCursor?: string;
  /** Back towards the first page; absent on the first page. */
  prevCursor?: string;
  /** The first row's position: "is there anything newer than what I see?" asks from here, backwards. */
  headCursor?: string;
  /** With a search: prefix or exact, how many directory terms it followed, and why it was narrowed. */
  search?: SearchInfo;
}

/**
 * The ledger, keyset-paged on (received_at, event_id, source) in either direction: page 1,000 costs
 * what page 1 does, and rows arriving meanwhile never shift a page.
 */
export async function listEvents(db: Db, actor: Actor | undefined, input: ListEventsInput = {}): Promise<EventPage> {
  authorize(actor, "events.read");
  return eventPage(db, ListEventsInput.parse(input));
}

/** listEvents after its role check and parse; `extra` narrows it further (a payload condition: ./payload-search.ts). */
export async function eventPage(db: Db, i: z.output<typeof ListEventsInput>, extra: SQL[] = []): Promise<EventPage> {
  const desc = i.sort === "received_desc";
  // Walking backwards flips the scan; the page is reversed again below.
  const scanDesc = desc !== i.back;
  const { where, search } = await resolveFilter(db, i.filter);
  where.push(...extra);
  const key = sql`(${webhookEvent.receivedAt}, ${webhookEvent.eventId}, ${webhookEvent.source})`;
  if (i.cursor) {
    const [ts, source, id] = decodeCursor(i.cursor);
    where.push(
      scanDesc
        ? sql`${key} < (${ts}::timestamptz, ${id}, ${source})`
        : sql`${key} > (${ts}::timestamptz, ${id}, ${source})`,
    );
  }
  const dir = scanDesc ? sql`desc` : sql`asc`;
  const rows = await db
    .select({
      source: webhookEvent.source,
      eventId: webhookEvent.eventId,
      eventType: webhookEvent.eventType,
      status: webhookEvent.status,
      attempts: webhookEvent.attempts,
      lastError: webhookEvent.lastError,
      receivedAt: webhookEvent.receivedAt,
      entityType: webhookEvent.entityType,
      entityId: webhookEvent.entityId,
      via: webhookEvent.via,
      test: webhookEvent.test,
      entityVersion: webhookEvent.entityVersion,
      outcome: webhookEvent.outcome,
      resolution: webhookEvent.resolution,
      resolutionNote: webhookEvent.resolutionNote,
      ts: sql<string>`${webhookEvent.receivedAt}::text`,
      matched: search ? matchedSubject(search) : sql<null>`null`,
    })
    .from(webhookEvent)
    .where(where.length ? and(...where) : undefined)
    .orderBy(sql`${webhookEvent.receivedAt} ${dir}, ${webhookEvent.eventId} ${dir}, ${webhookEvent.source} ${dir}`)
    .limit(i.limit + 1);
  const more = rows.length > i.limit;
  const page = rows.slice(0, i.limit);
  if (i.back) page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const cursorOf = (r: (typeof page)[number]) => encodeCursor([r.ts, r.source, r.eventId]);
  const hasNext = i.back ? i.cursor !== undefined : more;
  const hasPrev = i.back ? more : i.cursor !== undefined;
  return {
    rows: page.map(({ ts: _ts, matched, ...r }) => {
      const match = search && matchOf(search, r.eventId, matched);
      return match ? { ...r, match } : r;
    }),
    nextCursor: hasNext && last ? cursorOf(last) : undefined,
    prevCursor: hasPrev && first ? cursorOf(first) : undefined,
    headCursor: first ? cursorOf(first) : undefined,
    ...(search && { search: searchInfo(search) }),
  };
}

/** The row's best subject among those searched (q itself first, then directory order). */
function matchedSubject(search: ResolvedSearch): SQL<string | null> {
  const subjects = pgArray([...search.subjects.keys()], "text");
  return sql<string | null>`(
    select s from unnest(${webhookEvent.subjectIds}) as s
    where s = any(${subjects})
    order by array_position(${subjects}, s)
    limit 1)`;
}

function matchOf(search: ResolvedSearch, eventId: string, subject: string | null): SearchMatch | undefined {
  if (eventId === search.q) return { field: "event id", value: eventId };
  return subject === null ? undefined : search.subjects.get(subject);
}

const searchInfo = ({ q, mode, terms, more, note }: ResolvedSearch): SearchInfo => ({
  q,
  mode,
  terms,
  more,
  ...(note ? { note } : {}),
});
