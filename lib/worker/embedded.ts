import { getDbHandle } from "@/db";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import type { WorkerProbe } from "@/lib/health";
import type { EventKey } from "@/lib/ledger/types";
import { componentLogger, type Logger } from "@/lib/log";
import type { Worker } from "./run";
import { coalesce, WAKE_CHANNEL, WAKE_WINDOW_MS } from "./wake";

// On globalThis: server.ts's modules and Next's bundles (the route handler under `next dev`, the console's replay
// actions) are separate module graphs in one process, and each of them must find the one worker the process runs.
const globalForWorker = globalThis as unknown as {
  __ledgerWorker?: Worker;
  __ledgerWake?: () => void;
  __ledgerNotify?: () => void;
};

let logger: Logger | undefined;
const log = (message: string) => (logger ??= componentLogger("worker")).warn(message);

/**
 * Makes `worker` the one this process runs (lib/server/start-process-work.ts starts it), so a claim's wake-up,
 * replay's wake-ups and readiness find it. The returned function forgets it: a claim then wakes the others instead.
 */
export function registerProcessWorker(worker: Worker): () => void {
  globalForWorker.__ledgerWorker = worker;
  return () => {
    if (globalForWorker.__ledgerWorker === worker) globalForWorker.__ledgerWorker = undefined;
  };
}

/**
 * What readiness asks of this process's worker: whether one runs here (WORKER_MODE=embedded) and when it
 * last went round; a few poll intervals without a round is a stalled worker.
 */
export function embeddedWorkerProbe(): WorkerProbe {
  const env = getEnv();
  return {
    expected: env.WORKER_MODE === "embedded",
    lastTickAt: () => globalForWorker.__ledgerWorker?.lastTickAt(),
    staleAfterMs: Math.max(5 * env.WORKER_POLL_MS, 3000),
  };
}

/**
 * After a claim: wake a loop of this process's worker when it runs one, else the standalone workers with a
 * NOTIFY; either at most once per WAKE_WINDOW_MS, so a steady inflow is leased a window at a time.
 */
export async function afterClaim(key: EventKey): Promise<void> {
  try {
    if (globalForWorker.__ledgerWorker) {
      globalForWorker.__ledgerWake ??= coalesce(async () => globalForWorker.__ledgerWorker?.wake(), WAKE_WINDOW_MS);
      globalForWorker.__ledgerWake();
      return;
    }
    const handle = await getDbHandle();
    const notify = handle.notify;
    if (!notify) return;
    globalForWorker.__ledgerNotify ??= coalesce(
      () => notify(WAKE_CHANNEL),
      WAKE_WINDOW_MS,
      (err) => log(`notify: ${describeError(err)}`),
    );
    globalForWorker.__ledgerNotify();
  } catch (err) {
    // The event is claimed and committed; the polling loop or a standalone worker will take it.
    log(`wake-up after ${key.source}/${key.eventId}: ${describeError(err)}`);
  }
}

/** New work was claimed outside a delivery (a replay page): wake this process's worker, or the standalone ones. */
export function wakeWorkers(): void {
  const worker = globalForWorker.__ledgerWorker;
  if (worker) return worker.wake();
  getDbHandle()
    .then((handle) => handle.notify?.(WAKE_CHANNEL))
    .catch((err: unknown) => log(`notify: ${describeError(err)}`));
}
