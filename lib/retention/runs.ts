import { desc, eq, sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { retentionRun, type RetentionRun } from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";
import type { PruneCounts } from "./prune";
import { daysAgo, type RetentionSettings } from "./settings";

// Namespace of the advisory lock that serialises starting a run (two-key form, apart from other locks).
const RUN_LOCK_SPACE = 73126042;
const RUN_LOCK_KEY = 1;
/** A running row not heard from for this long belongs to a process that stopped. */
export const RUN_STALE_MS = 5 * 60_000;

/**
 * Record a new run, unless one is running (a live heartbeat) or, with `minIntervalMs`, one started that
 * recently: several app instances schedule retention, and one run at a time is enough. A running row whose
 * process stopped is closed as failed first. Returns undefined when it is not this process's turn.
 */
export async function startRetentionRun(
  db: Db,
  actor: string,
  s: Pick<RetentionSettings, "retentionDays" | "tombstoneDays">,
  opts: { minIntervalMs?: number } = {},
): Promise<RetentionRun | undefined> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${RUN_LOCK_SPACE}::int, ${RUN_LOCK_KEY}::int)`);
    await tx.execute(sql`
      update retention_run
      set status = 'failed', finished_at = heartbeat_at, error = 'its process stopped before it finished'
      where status = 'running' and heartbeat_at < now() - ${`${RUN_STALE_MS} milliseconds`}::interval`);
    const [busy] = rowsOf<{ id: number }>(
      await tx.execute(sql`
        select id from retention_run
        where status = 'running'
           or (${opts.minIntervalMs ?? 0}::int > 0 and started_at > now() - ${`${opts.minIntervalMs ?? 0} milliseconds`}::interval)
        limit 1`),
    );
    if (busy) return undefined;
    const [run] = await tx
      .insert(retentionRun)
      .values({ actor, eventsBefore: daysAgo(s.retentionDays), tombstonesBefore: daysAgo(s.tombstoneDays) })
      .returning();
    return run;
  });
}

export async function recordRetentionProgress(db: Db, id: number, counts: PruneCounts): Promise<void> {
  await db
    .update(retentionRun)
    .set({ ...counts, heartbeatAt: sql`now()` })
    .where(eq(retentionRun.id, id));
}

export async function finishRetentionRun(
  db: Db,
  id: number,
  status: "succeeded" | "failed" | "cancelled",
  counts: PruneCounts,
  error?: string,
): Promise<RetentionRun> {
  const [run] = await db
    .update(retentionRun)
    .set({ ...counts, status, error: error ?? null, heartbeatAt: sql`now()`, finishedAt: sql`clock_timestamp()` })
    .where(eq(retentionRun.id, id))
    .returning();
  return run!;
}

/** The newest runs first. */
export async function listRetentionRuns(db: Db, actor: Actor | undefined, limit = 5): Promise<RetentionRun[]> {
  authorize(actor, "events.read");
  return db
    .select()
    .from(retentionRun)
    .orderBy(desc(retentionRun.startedAt), desc(retentionRun.id))
    .limit(Math.min(Math.max(limit, 1), 50));
}
