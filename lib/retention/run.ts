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
import { cutoffs, type RetentionSettings } from "./settings";

export interface RetentionRunOptions {
  /** Who started it: "worker@host:pid" for the schedule, "cli:<user>" for `npm run prune`. */
  actor: string;
  signal?: AbortSignal;
  /** Skip when a run started this recently (the schedule, with several instances); the CLI always runs. */
  minIntervalMs?: number;
  onProgress?: (counts: PruneCounts) => void;
  now?: Date;
}

/**
 * One retention run: settled events (with tombstones), then expired tombstones, finished replay runs, old audit
 * rows and old runs of its own, each in small batches. Its row holds the counts as it goes; stopped by the
 * signal it is `cancelled` with what it did so far. Undefined when another run is going (or went recently).
 */
export async function runRetention(
  db: Db,
  s: RetentionSettings,
  opts: RetentionRunOptions,
): Promise<RetentionRun | undefined> {
  const cut = cutoffs(s, opts.now);
  const run = await startRetentionRun(db, opts.actor, cut, { minIntervalMs: opts.minIntervalMs });
  if (!run) return undefined;
  const counts = noCounts();
  const progress = async (c: Partial<PruneCounts>) => {
    Object.assign(counts, c);
    opts.onProgress?.({ ...counts });
    await recordRetentionProgress(db, run.id, counts);
  };
  const limit = Math.max(s.batchSize, 1000);
  try {
    await pruneSettledEvents(db, s, cut.events, { signal: opts.signal, onBatch: (c) => progress(c) });
    if (!opts.signal?.aborted)
      await progress({ tombstones: await pruneTombstones(db, cut.tombstones, limit, opts.signal) });
    if (!opts.signal?.aborted)
      await progress({ replayRuns: await pruneReplayRuns(db, cut.replayRuns, limit, opts.signal) });
    if (cut.audit && !opts.signal?.aborted)
      await progress({ auditRows: await pruneAuditLog(db, cut.audit, limit, opts.signal) });
    // Its own history: runs that describe data long gone.
    await db.execute(
      sql`delete from retention_run where status <> 'running' and started_at < ${cut.events.toISOString()}::timestamptz`,
    );
    return await finishRetentionRun(db, run.id, opts.signal?.aborted ? "cancelled" : "succeeded", counts);
  } catch (err) {
    await finishRetentionRun(db, run.id, "failed", counts, describeError(err)).catch(() => {});
    throw err;
  }
}
