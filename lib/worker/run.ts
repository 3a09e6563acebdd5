import type { Db } from "@/db/client";
import { describeError } from "@/lib/errors";
import { leaseDue, leaseOne, reapExpiredLeases } from "@/lib/ledger/lease";
import { processLeased, type Processed } from "@/lib/ledger/process";
import type { EventKey } from "@/lib/ledger/types";
import type { WorkerSettings } from "./settings";

export interface Worker {
  start(): void;
  /** Stop leasing, let in-flight batches finish, then resolve. */
  stop(): Promise<void>;
  /** Ask idle loops to look for work now (a claim in this process, or a NOTIFY from another). */
  wake(): void;
  /**
   * The fast path: process one just-claimed event now, if no other worker has it, the worker is running,
   * and fewer than `fastPathConcurrency` are in progress (else the loops take it; it is committed).
   */
  processClaimed(key: EventKey): Promise<Processed | undefined>;
}

export interface WorkerDeps {
  getDb: () => Promise<Db>;
  settings: WorkerSettings;
  log?: (message: string) => void;
  /** Subscribe to cross-process wake-ups (Postgres LISTEN); absent on PGlite, where polling suffices. */
  listen?: (onWake: () => void) => Promise<() => Promise<void>>;
}

/**
 * One loop, three hosts (after() fast path, embedded in the app, `npm run worker`). Each of
 * `concurrency` slots leases a batch, applies and settles it, and sleeps until woken or the poll
 * interval passes. A reaper takes back expired leases so a dead worker's events are retried.
 */
export function createWorker({ getDb, settings, log = () => {}, listen }: WorkerDeps): Worker {
  let running = false;
  let sleepers: (() => void)[] = [];
  const loops: Promise<void>[] = [];
  let reaper: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  const ctx = {
    policy: settings.policy,
    handlers: settings.handlers,
    providerApi: settings.providerApi,
    log,
    statementTimeoutMs: settings.statementTimeoutMs,
  };
  const fastPath = new Set<Promise<unknown>>();

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
    while (running) {
      try {
        const db = await getDb();
        const batch = await leaseDue(db, {
          workerId: settings.workerId,
          leaseMs: settings.leaseMs,
          limit: settings.batchSize,
        });
        if (batch.length > 0) {
          await processLeased(db, batch, ctx);
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
      listen?.(wake).then(
        (stopListening) => {
          unlisten = stopListening;
        },
        (err: unknown) => log(`listen failed, polling only: ${describeError(err)}`),
      );
    },
    async stop() {
      running = false;
      clearInterval(reaper);
      wake();
      // Each loop finishes (settles or records) the batch it holds; so does each fast-path event.
      await Promise.all([...loops.splice(0), ...fastPath]);
      await unlisten?.().catch(() => {});
    },
    wake,
    async processClaimed(key) {
      if (!running || fastPath.size >= settings.fastPathConcurrency) {
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
        const [result] = await processLeased(db, [leased], ctx);
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
