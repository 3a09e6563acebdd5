import { hostname } from "node:os";
import type { Db } from "@/db/client";
import { getEnv } from "@/lib/env";
import { startRetentionSchedule, type RetentionSchedule } from "./schedule";
import { retentionSettingsFromEnv } from "./settings";

const g = globalThis as unknown as { __ledgerRetention?: RetentionSchedule };

/**
 * Beside a worker host (lib/worker/embedded.ts, lib/worker/main.ts): retention every RETENTION_INTERVAL_MINUTES;
 * 0 leaves it to the CLI. One per process.
 */
export function startEmbeddedRetention(opts: { getDb: () => Promise<Db>; role: string; log: (m: string) => void }) {
  const env = getEnv();
  if (g.__ledgerRetention || env.RETENTION_INTERVAL_MINUTES === 0) return;
  g.__ledgerRetention = startRetentionSchedule({
    getDb: opts.getDb,
    settings: retentionSettingsFromEnv(env),
    intervalMs: env.RETENTION_INTERVAL_MINUTES * 60_000,
    firstDelayMs: env.RETENTION_FIRST_DELAY_MS,
    actor: `${opts.role}@${hostname()}:${process.pid}`,
    log: opts.log,
  });
}

/** Shutdown: a run in progress stops after its batch. */
export async function stopEmbeddedRetention(): Promise<void> {
  const schedule = g.__ledgerRetention;
  g.__ledgerRetention = undefined;
  await schedule?.stop();
}
