import { sql, type SQL } from "drizzle-orm";
import type { Env } from "@/lib/env";

/** What retention keeps and how it prunes, from the Env (or a test's own values). */
export interface RetentionSettings {
  /** Settled events received (and settled) longer ago than this are pruned. */
  retentionDays: number;
  /** Tombstones older than this are deleted; never shorter than retentionDays, or a tombstone would outlive nothing. */
  tombstoneDays: number;
  /** Finished replay runs (never running ones) older than this are deleted. */
  replayDays: number;
  /** Audit rows older than this are deleted; 0 keeps them. */
  auditDays: number;
  /** Events per batch: one short transaction each, so row locks are held for one batch at most. */
  batchSize: number;
  /** Pause between batches: the claims on the same cores get the CPU back. */
  pauseMs: number;
  /**
   * The share (percent) of wall time the prune's batches may take: after a batch of t ms it pauses at least
   * t · (100 − duty) / duty, so a slow batch (a busy database) is followed by a longer pause, not the next batch.
   */
  dutyPercent: number;
  /** How long a batch waits for snapshots older than its tombstones before it gives up (see prune.ts). */
  snapshotWaitMs: number;
}

export function retentionSettingsFromEnv(env: Env): RetentionSettings {
  return {
    retentionDays: env.RETENTION_DAYS,
    tombstoneDays: Math.max(env.TOMBSTONE_DAYS, env.RETENTION_DAYS),
    replayDays: env.REPLAY_RETENTION_DAYS,
    auditDays: env.AUDIT_RETENTION_DAYS,
    batchSize: env.RETENTION_BATCH_SIZE,
    pauseMs: env.RETENTION_PAUSE_MS,
    dutyPercent: env.RETENTION_DUTY_PERCENT,
    snapshotWaitMs: 30_000,
  };
}

/** The pause after a batch that took `batchMs`: RETENTION_PAUSE_MS at least, and enough to keep to the duty share. */
export function pauseAfter(s: Pick<RetentionSettings, "pauseMs" | "dutyPercent">, batchMs: number): number {
  const duty = Math.min(Math.max(s.dutyPercent, 1), 100);
  return Math.max(s.pauseMs, Math.ceil((batchMs * (100 - duty)) / duty));
}

/**
 * The instant `days` before PostgreSQL's now(), for the statement that deletes to compare with: every retention
 * cutoff is the database's clock, never this host's (a host whose clock ran ahead would prune what it must keep).
 */
export const daysAgo = (days: number): SQL => sql`(now() - make_interval(days => ${days}::int))`;
