import { sourcesFromEnv } from "@/lib/sources/from-env";
import { startAlertEvaluator, stopAlertEvaluator } from "@/lib/alerts/from-env";
import { getDbHandle } from "@/db";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { intakeStrained } from "@/lib/metrics/intake-strain";
import type { WorkerProbe } from "@/lib/health";
import type { EventKey } from "@/lib/ledger/types";
import { componentLogger, type Logger } from "@/lib/log";
import { startEmbeddedRetention, stopEmbeddedRetention } from "@/lib/retention/embedded";
import { createWorker, type Worker } from "./run";
import { workerSettingsFromEnv } from "./settings";
import { coalesce, WAKE_CHANNEL } from "./wake";

const globalForWorker = globalThis as unknown as { __ledgerWorker?: Worker; __ledgerNotify?: () => void };

let logger: Logger | undefined;
const log = (message: string) => (logger ??= componentLogger("worker")).warn(message);

/** The worker that lives inside the app process (WORKER_MODE=embedded). One per process. */
export function startEmbeddedWorker(): Worker | undefined {
  if (getEnv().WORKER_MODE !== "embedded") return undefined;
  globalForWorker.__ledgerWorker ??= (() => {
    const handle = getDbHandle();
    const worker = createWorker({
      getDb: async () => (await handle).db,
      settings: workerSettingsFromEnv(getEnv(), "embedded", (slug) => sourcesFromEnv().kindOf(slug)),
      // The receiver's claims share this process: a backlog's drain yields to them when they slow down.
      intakeStrained,
      listen: async (onWake) => {
        const h = await handle;
        return h.listen ? h.listen(WAKE_CHANNEL, onWake) : async () => {};
      },
    });
    worker.start();
    // Alerts run on their own timer beside the worker's loops (lib/alerts), never inside them.
    startAlertEvaluator({
      getDb: async () => (await handle).db,
      role: "embedded",
      log: (m) => componentLogger("alerts").warn(m),
    });
    startEmbeddedRetention({
      getDb: async () => (await handle).db,
      role: "embedded",
      log: (m) => componentLogger("retention").info(m),
    });
    return worker;
  })();
  return globalForWorker.__ledgerWorker;
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

/** Shutdown: stop leasing, let in-flight batches and fast-path events settle. */
export async function stopEmbeddedWorker(): Promise<void> {
  const worker = globalForWorker.__ledgerWorker;
  globalForWorker.__ledgerWorker = undefined;
  await Promise.all([worker?.stop(), stopAlertEvaluator(), stopEmbeddedRetention()]);
}

/**
 * After a claim: process it here and now when this process runs a worker (the fast path), else
 * wake the standalone workers with a coalesced NOTIFY.
 */
export async function afterClaim(key: EventKey): Promise<void> {
  const worker = globalForWorker.__ledgerWorker;
  try {
    if (worker) {
      await worker.processClaimed(key);
      return;
    }
    const handle = await getDbHandle();
    const notify = handle.notify;
    if (!notify) return;
    globalForWorker.__ledgerNotify ??= coalesce(
      () => notify(WAKE_CHANNEL),
      25,
      (err) => log(`notify: ${describeError(err)}`),
    );
    globalForWorker.__ledgerNotify();
  } catch (err) {
    // The event is claimed and committed; the polling loop or a standalone worker will take it.
    log(`fast path for ${key.source}/${key.eventId}: ${describeError(err)}`);
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
