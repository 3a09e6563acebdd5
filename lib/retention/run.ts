import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { RetentionRun } from "@/db/schema";
import { describeError } from "@/lib/errors";
import {
  noCounts,
  pruneAuditLog,
  pruneReplayRuns,
  pruneSettledEvents,
  pruneTombstones,
  type PruneCounts,
} from "./prune";
import { finishRetentionRun, recordRetentionProgress, startRetentionRun } from "./runs";
import { daysAgo, type RetentionSettings } from "./settings";

export interface RetentionRunOptions {
  /** Who started it: "worker@host:pid" for the schedule, "cli:<user>" for `npm run prune`. */
  actor: string;
  signal?: AbortSignal;
  /** Skip when a run started this recently (the schedule, with several instances); the CLI always runs. */
  minIntervalMs?: number;
  onProgress?: (counts: PruneCounts) => void;
}

/**
 * One retention run: expired tombstones, then settled events (with tombstones), finished replay runs, old audit
 * rows and old runs of its own, each in small batches, each cutoff the database's clock (./settings.ts daysAgo).
 * Expired tombstones go first, so none is deleted by the run that wrote it. Its row holds the counts as it goes; stopped by the
 * signal it is `cancelled` with what it did so far. Undefined when another run is going (or went recently).
 */
export async function runRetention(
  db: Db,
  s: RetentionSettings,
  opts: RetentionRunOptions,
): Promise<RetentionRun | undefined> {
  const run = await startRetentionRun(db, opts.actor, s, { minIntervalMs: opts.minIntervalMs });
  if (!run) return undefined;
  const counts = noCounts();
  const progress = async (c: Partial<PruneCounts>) => {
    Object.assign(counts, c);
    opts.onProgress?.({ ...counts });
    await recordRetentionProgress(db, run.id, counts);
  };
  const limit = Math.max(s.batchSize, 1000);
  try {
    await progress({ tombstones: await pruneTombstones(db, s.tombstoneDays, limit, opts.signal) });
    if (!opts.signal?.aborted)
      await pruneSettledEvents(db, s, {
        signal: opts.signal,
        onBatch: ({ events, deliveries, attempts, transitions, batches }) =>
          progress({ events, deliveries, attempts, transitions, batches }),
      });
    if (!opts.signal?.aborted)
      await progress({ replayRuns: await pruneReplayRuns(db, s.replayDays, limit, opts.signal) });
    if (s.auditDays > 0 && !opts.signal?.aborted)
      await progress({ auditRows: await pruneAuditLog(db, s.auditDays, limit, opts.signal) });
    // Its own history: runs that describe data long gone.
    await db.execute(
      sql`delete from retention_run where status <> 'running' and started_at < ${daysAgo(s.retentionDays)}`,
    );
    return await finishRetentionRun(db, run.id, opts.signal?.aborted ? "cancelled" : "succeeded", counts);
  } catch (err) {
    await finishRetentionRun(db, run.id, "failed", counts, describeError(err)).catch(() => {});
    throw err;
  }
}
