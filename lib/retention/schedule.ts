import type { Db } from "@/db/client";
import { describeError } from "@/lib/errors";
import { runRetention } from "./run";
import type { RetentionSettings } from "./settings";

export interface RetentionSchedule {
  /** Stop the timer; a run in progress stops after its current batch (its row says `cancelled`). */
  stop(): Promise<void>;
}

/**
 * Retention inside a worker host: a run every `intervalMs` (the first one `firstDelayMs` after start, away from
 * start-up's own work). Every instance schedules it; the run row lets one of them run per interval.
 */
export function startRetentionSchedule(opts: {
  getDb: () => Promise<Db>;
  settings: RetentionSettings;
  intervalMs: number;
  actor: string;
  log: (message: string) => void;
  firstDelayMs?: number;
}): RetentionSchedule {
  const stop = new AbortController();
  let busy: Promise<void> | undefined;
  const tick = () => {
    busy ??= (async () => {
      const db = await opts.getDb();
      const run = await runRetention(db, opts.settings, {
        actor: opts.actor,
        signal: stop.signal,
        // Slightly under the interval: timers drift, and a run that just missed its slot would wait a whole one.
        minIntervalMs: Math.floor(opts.intervalMs * 0.9),
      });
      if (run && run.events + run.tombstones + run.replayRuns + run.auditRows > 0)
        opts.log(
          `retention run ${run.id}: ${run.status}, pruned ${run.events} events ` +
            `(${run.deliveries} deliveries, ${run.attempts} attempts, ${run.transitions} timeline rows), ` +
            `${run.tombstones} tombstones, ${run.replayRuns} replay runs, ${run.auditRows} audit rows`,
        );
    })()
      .catch((err: unknown) => opts.log(`retention: ${describeError(err)}`))
      .finally(() => {
        busy = undefined;
      });
  };
  const first = setTimeout(() => {
    tick();
    timer.refresh();
  }, opts.firstDelayMs ?? 60_000);
  const timer = setInterval(tick, opts.intervalMs);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      clearTimeout(first);
      clearInterval(timer);
      stop.abort(new Error("shutting down"));
      await busy;
    },
  };
}
