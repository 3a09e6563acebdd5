import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { authorize, type Actor } from "@/lib/roles";
import { daysAgo, type RetentionSettings } from "./settings";

/** The instants before which each kind of row goes, as of the database's clock now. */
export interface Cutoffs {
  events: Date;
  tombstones: Date;
  replayRuns: Date;
  /** Undefined: audit rows are kept. */
  audit?: Date;
}

export interface RetentionPreview {
  cutoffs: Cutoffs;
  /** What a run now would delete. With a cap, a count that reached it means "at least this many". */
  events: number;
  deliveries?: number;
  attempts?: number;
  transitions?: number;
  tombstones: number;
  replayRuns: number;
  auditRows: number;
  /** The count that stands for "this many or more"; undefined when the counts are exact. */
  cap?: number;
  /** When the oldest settled event still kept arrived. */
  oldestSettledAt: Date | null;
  /** Events kept because they are failed or dead, older than the cutoff: retention never prunes those. */
  keptUnsettled: number;
}

const prunable = (days: number, alias = "e") =>
  sql`${sql.raw(alias)}.status = 'settled' and ${sql.raw(alias)}.received_at < ${daysAgo(days)}
      and coalesce(${sql.raw(alias)}.settled_at, ${sql.raw(alias)}.received_at) < ${daysAgo(days)}`;

/** `count(*)` of a query's rows, stopping at `cap` when one is given (a console page must stay fast). */
const counted = (from: SQL, cap?: number) =>
  cap === undefined
    ? sql`(select count(*)::int from ${from})`
    : sql`(select count(*)::int from (select 1 from ${from} limit ${cap}) capped)`;

/**
 * The oldest settled event's received_at. `order by … limit 1`, not min(): PostgreSQL turns min() into an index
 * probe only on a plain table, and decides that before it drops the view's join, so min() read every settled row;
 * this form is one probe of the status index.
 */
export const oldestSettledSql = (): SQL =>
  sql`select received_at from webhook_event where status = 'settled' order by received_at limit 1`;

/**
 * What retention would do now: the console's panel (capped counts, a few index probes) and `npm run prune --
 * --dry-run` (exact counts, including the deliveries, attempts and timeline rows of the events).
 */
export async function previewRetention(
  db: Db,
  s: RetentionSettings,
  opts: { cap?: number } = {},
): Promise<RetentionPreview> {
  const { cap } = opts;
  const children = (table: string) =>
    sql`(select count(*)::int from ${sql.identifier(table)} c
         where exists (select 1 from webhook_event e where e.source = c.source and e.event_id = c.event_id
                       and ${prunable(s.retentionDays)}))`;
  // These counts have no cap, so a capped (console) preview leaves them out.
  const rowCounts =
    cap === undefined
      ? sql`,
             ${children("webhook_delivery")} as deliveries,
             ${children("webhook_attempt")} as attempts,
             ${children("entity_transition")} as transitions`
      : sql``;
  const [row] = rowsOf<Record<string, number | string | null>>(
    await db.execute(sql`
      select ${counted(sql`webhook_event e where ${prunable(s.retentionDays)}`, cap)} as events,
             ${counted(sql`webhook_tombstone where received_at < ${daysAgo(s.tombstoneDays)}`, cap)} as tombstones,
             ${counted(sql`replay_run where status <> 'running' and coalesce(finished_at, started_at) < ${daysAgo(s.replayDays)}`, cap)} as replay_runs,
             ${s.auditDays > 0 ? counted(sql`audit_log where at < ${daysAgo(s.auditDays)}`, cap) : sql`0`} as audit_rows,
             ${counted(sql`webhook_event where status in ('failed', 'dead') and received_at < ${daysAgo(s.retentionDays)}`, cap)} as kept_unsettled,
             (${oldestSettledSql()})::text as oldest,
             ${daysAgo(s.retentionDays)}::text as events_before, ${daysAgo(s.tombstoneDays)}::text as tombstones_before,
             ${daysAgo(s.replayDays)}::text as replay_runs_before, ${daysAgo(s.auditDays)}::text as audit_before
             ${rowCounts}`),
  );
  const n = (k: string) => Number(row?.[k] ?? 0);
  const at = (k: string) => new Date(String(row?.[k]));
  return {
    cutoffs: {
      events: at("events_before"),
      tombstones: at("tombstones_before"),
      replayRuns: at("replay_runs_before"),
      audit: s.auditDays > 0 ? at("audit_before") : undefined,
    },
    events: n("events"),
    ...(cap === undefined
      ? { deliveries: n("deliveries"), attempts: n("attempts"), transitions: n("transitions") }
      : {}),
    tombstones: n("tombstones"),
    replayRuns: n("replay_runs"),
    auditRows: n("audit_rows"),
    cap,
    oldestSettledAt: row?.oldest ? new Date(String(row.oldest)) : null,
    keptUnsettled: n("kept_unsettled"),
  };
}

/** The overview's panel: what retention will do (capped) and its last runs. */
export async function getRetentionPreview(db: Db, actor: Actor | undefined, s: RetentionSettings) {
  authorize(actor, "events.read");
  return previewRetention(db, s, { cap: 10_000 });
}
