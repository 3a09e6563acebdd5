import { hostname } from "node:os";
import type { Db } from "@/db/client";
import { getEnv } from "@/lib/env";
import { startRetentionSchedule, type RetentionSchedule } from "./schedule";
import { retentionSettingsFromEnv } from "./settings";

/**
 * Beside a worker (lib/server/start-process-work.ts): retention every RETENTION_INTERVAL_MINUTES; 0 leaves it to the
 * CLI (undefined). Its stop lets a run in progress finish its batch.
 */
export function startEmbeddedRetention(opts: {
  getDb: () => Promise<Db>;
  role: string;
  log: (m: string) => void;
}): RetentionSchedule | undefined {
  const env = getEnv();
  if (env.RETENTION_INTERVAL_MINUTES === 0) return undefined;
  return startRetentionSchedule({
    getDb: opts.getDb,
    settings: retentionSettingsFromEnv(env),
    intervalMs: env.RETENTION_INTERVAL_MINUTES * 60_000,
    firstDelayMs: env.RETENTION_FIRST_DELAY_MS,
    actor: `${opts.role}@${hostname()}:${process.pid}`,
    log: opts.log,
  });
}
