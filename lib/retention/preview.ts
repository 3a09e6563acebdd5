import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { authorize, type Actor } from "@/lib/auth/roles";
import { cutoffs, type Cutoffs, type RetentionSettings } from "./settings";

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

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const prunable = (before: Date, alias = "e") =>
  sql`${sql.raw(alias)}.status = 'settled' and ${sql.raw(alias)}.received_at < ${ts(before)}
      and coalesce(${sql.raw(alias)}.settled_at, ${sql.raw(alias)}.received_at) < ${ts(before)}`;

/** `count(*)` of a query's rows, stopping at `cap` when one is given (a console page must stay fast). */
const counted = (from: SQL, cap?: number) =>
  cap === undefined
    ? sql`(select count(*)::int from ${from})`
    : sql`(select count(*)::int from (select 1 from ${from} limit ${cap}) capped)`;

/**
 * The oldest settled event's received_at. `order by … limit 1`, not min(): PostgreSQL turns min() into an index
 * probe only on a plain table, and decides that before it drops the view's join, so min() read every settled row
 * (bench:console at 1M: 198 ms; this form is one probe of the status index).
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
  opts: { cap?: number; now?: Date } = {},
): Promise<RetentionPreview> {
  const cut = cutoffs(s, opts.now);
  const { cap } = opts;
  const children = (table: string) =>
    sql`(select count(*)::int from ${sql.identifier(table)} c
         where exists (select 1 from webhook_event e where e.source = c.source and e.event_id = c.event_id
                       and ${prunable(cut.events)}))`;
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
      select ${counted(sql`webhook_event e where ${prunable(cut.events)}`, cap)} as events,
             ${counted(sql`webhook_tombstone where received_at < ${ts(cut.tombstones)}`, cap)} as tombstones,
             ${counted(sql`replay_run where status <> 'running' and coalesce(finished_at, started_at) < ${ts(cut.replayRuns)}`, cap)} as replay_runs,
             ${cut.audit ? counted(sql`audit_log where at < ${ts(cut.audit)}`, cap) : sql`0`} as audit_rows,
             ${counted(sql`webhook_event where status in ('failed', 'dead') and received_at < ${ts(cut.events)}`, cap)} as kept_unsettled,
             (${oldestSettledSql()})::text as oldest
             ${rowCounts}`),
  );
  const n = (k: string) => Number(row?.[k] ?? 0);
  return {
    cutoffs: cut,
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
