import { and, desc, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { EVENT_STATUSES, webhookEvent, type EventStatus } from "@/db/schema";
import { authorize, type Actor } from "@/lib/auth/roles";
import type { Source } from "@/lib/providers/types";

export interface EventListRow {
  source: Source;
  eventId: string;
  eventType: string;
  status: EventStatus;
  attempts: number;
  lastError: string | null;
  receivedAt: Date;
  entityType: string | null;
  entityId: string | null;
}

export interface EventCursor {
  receivedAt: string;
  eventId: string;
}

/** Newest first, keyset-paged on (received_at, event_id): page 1,000 costs what page 1 does. */
export async function listEvents(
  db: Db,
  actor: Actor | undefined,
  input: { statuses?: readonly EventStatus[]; limit?: number; after?: EventCursor },
): Promise<{ rows: EventListRow[]; nextCursor: EventCursor | undefined }> {
  authorize(actor, "events.read");
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const where: SQL[] = [];
  if (input.statuses?.length) where.push(inArray(webhookEvent.status, input.statuses.filter((s) => EVENT_STATUSES.includes(s))));
  if (input.after) {
    // A row comparison, so the (received_at, event_id) index serves it as one range.
    where.push(sql`(${webhookEvent.receivedAt}, ${webhookEvent.eventId}) < (${input.after.receivedAt}::timestamptz, ${input.after.eventId})`);
  }
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
    })
    .from(webhookEvent)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(webhookEvent.receivedAt), desc(webhookEvent.eventId))
    .limit(limit + 1);
  const page = rows.slice(0, limit) as EventListRow[];
  const last = page[page.length - 1];
  return { rows: page, nextCursor: rows.length > limit && last ? { receivedAt: last.receivedAt.toISOString(), eventId: last.eventId } : undefined };
}

export async function countByStatus(db: Db, actor: Actor | undefined): Promise<Record<EventStatus, number>> {
  authorize(actor, "events.read");
  const rows = await db.select({ status: webhookEvent.status, n: sql<number>`count(*)::int` }).from(webhookEvent).groupBy(webhookEvent.status);
  const out = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  for (const r of rows) out[r.status] = Number(r.n);
  return out;
}
