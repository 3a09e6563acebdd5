import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { EVENT_STATUSES, type EventStatus } from "@/db/schema";
import { authorize, type Actor } from "@/lib/auth/roles";

/** Above this many rows the settled count is PostgreSQL's estimate: an exact count would scan history. */
const EXACT_COUNT_LIMIT = 200_000;

export interface StatusCounts {
  counts: Record<EventStatus, number>;
  /** true when `settled` is the planner's estimate (shown as ≈). */
  settledApproximate: boolean;
}

export async function getStatusCounts(db: Db, actor: Actor | undefined): Promise<StatusCounts> {
  authorize(actor, "events.read");
  const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  const open = rowsOf<{ status: EventStatus; n: number }>(
    // An explicit list, not `<> 'settled'`: only that can be an index condition on the status index.
    await db.execute(
      sql`select status, count(*)::int as n from webhook_event where status in ('claimed', 'processing', 'failed', 'dead') group by status`,
    ),
  );
  for (const r of open) counts[r.status] = Number(r.n);
  const [est] = rowsOf<{ n: number }>(
    await db.execute(sql`select reltuples::float8 as n from pg_class where oid = 'webhook_event'::regclass`),
  );
  const estimate = Number(est?.n ?? -1);
  if (estimate >= EXACT_COUNT_LIMIT) {
    const others = open.reduce((sum, r) => sum + Number(r.n), 0);
    counts.settled = Math.max(0, Math.round(estimate) - others);
    return { counts, settledApproximate: true };
  }
  const [settled] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from webhook_event where status = 'settled'`),
  );
  counts.settled = Number(settled?.n ?? 0);
  return { counts, settledApproximate: false };
}

export interface Backlog {
  /** claimed, processing or failed: work the worker still owes. */
  size: number;
  dueNow: number;
  oldestReceivedAt: Date | null;
}

export async function getBacklog(db: Db, actor: Actor | undefined): Promise<Backlog> {
  authorize(actor, "events.read");
  const [row] = rowsOf<{ size: number; due: number; oldest: string | null }>(
    await db.execute(sql`
      select count(*)::int as size, count(*) filter (where status <> 'processing' and next_attempt_at <= now())::int as due,
             min(received_at)::text as oldest
      from webhook_event where status in ('claimed', 'failed', 'processing')`),
  );
  return {
    size: Number(row?.size ?? 0),
    dueNow: Number(row?.due ?? 0),
    oldestReceivedAt: row?.oldest ? new Date(row.oldest) : null,
  };
}

export interface DeliveryMinute {
  minute: Date;
  source: string;
  deliveries: number;
  duplicates: number;
}

/** Deliveries per minute and source over the last `hours` (duplicates included: they are traffic too). */
export async function getDeliveryRate(db: Db, actor: Actor | undefined, hours = 24): Promise<DeliveryMinute[]> {
  authorize(actor, "events.read");
  const rows = rowsOf<{ minute: string; source: string; n: number; dups: number }>(
    await db.execute(sql`
      select date_trunc('minute', received_at)::text as minute, source, count(*)::int as n,
             count(*) filter (where not claimed)::int as dups
      from webhook_delivery where received_at > now() - make_interval(hours => ${hours}::int)
      group by 1, 2 order by 1, 2`),
  );
  return rows.map((r) => ({
    minute: new Date(r.minute),
    source: r.source,
    deliveries: Number(r.n),
    duplicates: Number(r.dups),
  }));
}

export interface FailingType {
  source: string;
  eventType: string;
  failed: number;
  dead: number;
}

export async function getFailingTypes(db: Db, actor: Actor | undefined, limit = 5): Promise<FailingType[]> {
  authorize(actor, "events.read");
  const rows = rowsOf<{ source: string; event_type: string; failed: number; dead: number }>(
    await db.execute(sql`
      select source, event_type, count(*) filter (where status = 'failed')::int as failed,
             count(*) filter (where status = 'dead')::int as dead
      from webhook_event where status in ('failed', 'dead')
      group by 1, 2 order by count(*) desc, 2 limit ${limit}`),
  );
  return rows.map((r) => ({
    source: r.source,
    eventType: r.event_type,
    failed: Number(r.failed),
    dead: Number(r.dead),
  }));
}

export interface DeadEvent {
  source: string;
  eventId: string;
  eventType: string;
  attempts: number;
  lastError: string | null;
  receivedAt: Date;
}

/** Past this many, the dead count reads "1,000+": counting a pile of a hundred thousand costs a second. */
export const DEAD_COUNT_CAP = 1000;

export async function listDeadEvents(
  db: Db,
  actor: Actor | undefined,
  limit = 10,
): Promise<{ rows: DeadEvent[]; total: number; more: boolean }> {
  authorize(actor, "events.read");
  // Two statements: a window count would fetch every dead row from the heap to show ten; the count is capped.
  const [rows, [total]] = await Promise.all([
    db.execute(sql`
      select source, event_id, event_type, attempts, last_error, received_at::text as received_text
      from webhook_event where status = 'dead' order by received_at desc, event_id desc, source desc limit ${limit}`),
    db.execute(
      sql`select count(*)::int as n from (select 1 from webhook_event where status = 'dead' limit ${DEAD_COUNT_CAP + 1}) capped`,
    ),
  ]).then(
    ([r, t]) =>
      [
        rowsOf<{
          source: string;
          event_id: string;
          event_type: string;
          attempts: number;
          last_error: string | null;
          received_text: string;
        }>(r),
        rowsOf<{ n: number }>(t),
      ] as const,
  );
  const n = Number(total?.n ?? 0);
  return {
    total: Math.min(n, DEAD_COUNT_CAP),
    more: n > DEAD_COUNT_CAP,
    rows: rows.map((r) => ({
      source: r.source,
      eventId: r.event_id,
      eventType: r.event_type,
      attempts: r.attempts,
      lastError: r.last_error,
      receivedAt: new Date(r.received_text),
    })),
  };
}
