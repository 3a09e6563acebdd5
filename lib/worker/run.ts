import type { Db } from "@/db/client";
import { describeError } from "@/lib/errors";
import { leaseDue, leaseOne, reapExpiredLeases } from "@/lib/ledger/lease";
import { processLeased, type Processed } from "@/lib/ledger/process";
import type { EventKey, LeasedEvent } from "@/lib/ledger/types";
import { componentLogger, type Logger } from "@/lib/log";
import { attemptOutcomeLabel, getMetrics, type LedgerMetrics } from "@/lib/metrics";
import { createIndexMerger } from "./index-merge";
import type { WorkerSettings } from "./settings";

/** What the live lane counts as live: due within this long (a new claim is due at once). */
export const LIVE_LANE_MS = 60_000;

export interface Worker {
  start(): void;
  /** Stop leasing, let in-flight batches finish, then resolve. */
  stop(): Promise<void>;
  /** Ask idle loops to look for work now (a claim in this process, or a NOTIFY from another). */
  wake(): void;
  /**
   * The fast path: process one just-claimed event now, if no other worker has it, the worker is running,
   * no loop of it has a batch in hand, and fewer than `fastPathConcurrency` are in progress (else the loops
   * take it; it is committed).
   */
  processClaimed(key: EventKey): Promise<Processed | undefined>;
  /**
   * When this worker was last seen alive (Date.now() ms): a loop went round, or a batch is in hand for less
   * than a lease. Undefined before start and after stop. Readiness reads it (lib/health.ts).
   */
  lastTickAt(): number | undefined;
}

export interface WorkerDeps {
  getDb: () => Promise<Db>;
  settings: WorkerSettings;
  /** Batch lines and the worker's warnings (default: the process's logger, component "worker"). */
  logger?: Logger;
  /** Messages only, instead of the logger's warnings (batch lines still go to the logger). */
  log?: (message: string) => void;
  /** Attempts and processing time (default: the process's metrics). */
  metrics?: LedgerMetrics;
  /** Subscribe to cross-process wake-ups (Postgres LISTEN); absent on PGlite, where polling suffices. */
  listen?: (onWake: () => void) => Promise<() => Promise<void>>;
}

/**
 * One loop, three hosts (after() fast path, embedded in the app, `npm run worker`). Each of
 * `concurrency` slots leases a batch, applies and settles it, and sleeps until woken or the poll
 * interval passes. A reaper takes back expired leases so a dead worker's events are retried.
 */
export function createWorker({ getDb, settings, listen, ...deps }: WorkerDeps): Worker {
  const logger = deps.logger ?? componentLogger("worker");
  const metrics = deps.metrics ?? getMetrics();
  const log = deps.log ?? ((message: string) => logger.warn(message));
  let running = false;
  let lastTick: number | undefined;
  const busy = new Set<{ since: number }>();
  let sleepers: (() => void)[] = [];
  const loops: Promise<void>[] = [];
  let reaper: NodeJS.Timeout | undefined;
  let merger: NodeJS.Timeout | undefined;
  const indexMerger = createIndexMerger(getDb, log);
  let unlisten: (() => Promise<void>) | undefined;
  const ctx = {
    policy: settings.policy,
    handlers: settings.handlers,
    providerApi: settings.providerApi,
    log,
    statementTimeoutMs: settings.statementTimeoutMs,
  };
  const fastPath = new Set<Promise<unknown>>();
  let busyLoops = 0;

  /** Apply and settle one leased batch; count its attempts, time it, and say so in one line. */
  async function settleBatch(db: Db, batch: LeasedEvent[], path: "batch" | "fast_path"): Promise<Processed[]> {
    const inHand = { since: Date.now() };
    busy.add(inHand);
    const t0 = performance.now();
    try {
      const results = await processLeased(db, batch, ctx);
      const seconds = (performance.now() - t0) / 1000;
      metrics.processingDuration.observe({ path }, seconds);
      const outcomes: Record<string, number> = {};
      for (const r of results) {
        const label = attemptOutcomeLabel(r.outcome);
        outcomes[label] = (outcomes[label] ?? 0) + 1;
      }
      for (const [outcome, n] of Object.entries(outcomes)) metrics.attempts.inc({ outcome }, n);
      logger.info(
        {
          path,
          count: batch.length,
          outcomes,
          ms: Math.round(seconds * 10_000) / 10,
          ...(batch.length === 1 ? { source: batch[0]!.source, eventId: batch[0]!.eventId } : {}),
        },
        "batch settled",
      );
      return results;
    } finally {
      busy.delete(inHand);
      lastTick = Date.now();
    }
  }

  const wake = () => {
    const waiting = sleepers;
    sleepers = [];
    for (const resolve of waiting) resolve();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        sleepers = sleepers.filter((s) => s !== done);
        resolve();
      }
      sleepers.push(done);
    });

  async function loop(slot: number) {
    // Every other batch first looks at the live lane (events due in the last LIVE_LANE_MS, newest first): under
    // a backlog (an outage, a replay) a fresh delivery waits about one batch, not the whole backlog, which still
    // drains oldest first. An empty lane costs one short index probe.
    let turn = slot;
    while (running) {
      lastTick = Date.now();
      try {
        const db = await getDb();
        const lease = (limit: number, liveWithinMs?: number) =>
          leaseDue(db, { workerId: settings.workerId, leaseMs: settings.leaseMs, limit, liveWithinMs });
        const live = turn++ % 2 === 1 ? await lease(settings.batchSize, LIVE_LANE_MS) : [];
        // A short live batch is topped up with the oldest: one transaction either way. The live events are leased
        // (committed) already: if the top-up fails, settle them anyway rather than leave them to the reaper.
        const older =
          live.length < settings.batchSize
            ? await lease(settings.batchSize - live.length).catch((err: unknown) => {
                if (live.length === 0) throw err;
                log(`worker slot ${slot}: ${describeError(err)}`);
                return [];
              })
            : [];
        const batch = [...live, ...older];
        if (batch.length > 0) {
          busyLoops++;
          try {
            await settleBatch(db, batch, "batch");
          } finally {
            busyLoops--;
          }
          continue;
        }
      } catch (err) {
        log(`worker slot ${slot}: ${describeError(err)}`);
      }
      if (running) await sleep(settings.pollMs);
    }
  }

  async function reap() {
    try {
      const reaped = await reapExpiredLeases(await getDb(), settings.policy);
      if (reaped.length > 0) {
        metrics.attempts.inc({ outcome: "lease_expired" }, reaped.length);
        log(`took back ${reaped.length} expired lease(s)`);
        wake();
      }
    } catch (err) {
      log(`reaper: ${describeError(err)}`);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      for (let i = 0; i < settings.concurrency; i++) loops.push(loop(i));
      reaper = setInterval(() => void reap(), Math.max(50, Math.min(settings.leaseMs / 2, 5000)));
      void reap();
      if (settings.indexMergeMs) merger = setInterval(() => void indexMerger.merge(), settings.indexMergeMs);
      listen?.(wake).then(
        (stopListening) => {
          unlisten = stopListening;
        },
        (err: unknown) => log(`listen failed, polling only: ${describeError(err)}`),
      );
    },
    lastTickAt() {
      if (!running) return undefined;
      // A batch in hand for less than a lease is a worker at work, not a stalled one.
      for (const b of busy) if (Date.now() - b.since < settings.leaseMs) return Date.now();
      return lastTick;
    },
    async stop() {
      running = false;
      clearInterval(reaper);
      clearInterval(merger);
      wake();
      // Each loop finishes (settles or records) the batch it holds; so does each fast-path event.
      await Promise.all([...loops.splice(0), ...fastPath, indexMerger.idle()]);
      await unlisten?.().catch(() => {});
    },
    wake,
    async processClaimed(key) {
      // A loop with a batch in hand leases again the moment it settles, and takes this event in a batch at a
      // fraction of the fast path's cost per event (one lease and one transaction for a hundred): under load
      // the fast path steps aside; it is for the idle receiver, where it saves the loop's wake-up.
      if (!running || fastPath.size >= settings.fastPathConcurrency || busyLoops > 0) {
        if (running) wake();
        return undefined;
      }
      const work = (async () => {
        const db = await getDb();
        const leased = await leaseOne(db, key, {
          workerId: settings.workerId,
          leaseMs: settings.leaseMs,
          statuses: ["claimed"],
        });
        if (!leased) return undefined;
        const [result] = await settleBatch(db, [leased], "fast_path");
        return result;
      })();
      fastPath.add(work);
      try {
        return await work;
      } finally {
        fastPath.delete(work);
      }
    },
  };
}
