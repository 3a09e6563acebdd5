import { getDbHandle, type Db, type DbHandle } from "@/db";
import { startAlertEvaluator } from "@/lib/alerts/from-env";
import { getEnv, retiredVariables, type Env } from "@/lib/env";
import { startForwarderFromEnv } from "@/lib/forward/from-env";
import type { Lifecycle } from "@/lib/lifecycle";
import { componentLogger } from "@/lib/log";
import { intakeStrained } from "@/lib/metrics/intake-strain";
import { startEmbeddedReplays, stopEmbeddedReplays } from "@/lib/replay/embedded";
import { startEmbeddedRetention } from "@/lib/retention/embedded";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { registerProcessWorker } from "@/lib/worker/embedded";
import { createWorker } from "@/lib/worker/run";
import { workerSettingsFromEnv } from "@/lib/worker/settings";
import { WAKE_CHANNEL } from "@/lib/worker/wake";

/**
 * Which process this is. `app`: one that serves (`npm start`, `npm run receiver`, `next dev`); it runs the worker
 * when WORKER_MODE=embedded, and always the replay resumer (the console drives its replays there). `worker`:
 * `npm run worker`, which runs the worker whatever WORKER_MODE says.
 */
export type ProcessHost = "app" | "worker";

export interface ProcessWorkOptions {
  host: ProcessHost;
  /** The process's database (default: the app's, getDbHandle), or the pool `npm run worker` opened for itself. */
  database?: () => Promise<Pick<DbHandle, "db" | "listen">>;
  /** Each part's stop is registered here, in the `work` stage (after intake, before the pools). */
  lifecycle: Lifecycle;
  env?: Env;
}

// One per process, whichever module graph asks (server.ts's, or Next's bundle under `next dev`, which may register
// its instrumentation again): a second start would run every loop twice.
const globalForWork = globalThis as unknown as { __ledgerProcessWork?: ProcessHost };

/**
 * Starts everything a process runs in the background, and registers how each one stops. Every host calls it
 * once (server.ts, lib/cli/receiver.ts, lib/cli/worker.ts, instrumentation.ts under `next dev`): a new loop is
 * started here, beside the others, and nowhere else.
 */
export function startProcessWork(opts: ProcessWorkOptions): void {
  const env = opts.env ?? getEnv();
  const { host, lifecycle } = opts;
  if (globalForWork.__ledgerProcessWork) return;
  globalForWork.__ledgerProcessWork = host;
  const retired = retiredVariables();
  if (retired.length > 0)
    componentLogger("settings").warn(
      `ignored: ${retired.join(", ")} ${retired.length === 1 ? "is" : "are"} no longer read (a constant now; the README's Configuration lists what is)`,
    );
  // The ids each part writes (attempts, alert evaluations, retention runs) say which kind of process it was.
  const role = host === "worker" ? "worker" : "embedded";
  const database = opts.database ?? getDbHandle;
  const getDb = async (): Promise<Db> => (await database()).db;
  const stops: [name: string, stop: () => Promise<void>][] = [];

  if (host === "worker" || env.WORKER_MODE === "embedded") {
    const settings = workerSettingsFromEnv(env, role, (slug) => sourcesFromEnv().kindOf(slug));
    // Forwards to the team's destinations (lib/forward): the settle queues them, this loop sends them.
    const forwarder = startForwarderFromEnv(getDb, { log: (m) => componentLogger("forward").warn(m) });
    const worker = createWorker({
      getDb,
      settings,
      forwardsQueued: () => forwarder.wake(),
      // An app's claims share this process: a backlog's drain yields to them when they slow down.
      intakeStrained: host === "app" ? intakeStrained : undefined,
      listen: async (onWake) => {
        const { listen } = await database();
        return listen ? listen(WAKE_CHANNEL, onWake) : async () => {};
      },
    });
    const forget = registerProcessWorker(worker);
    worker.start();
    stops.push([
      "worker",
      () => {
        forget(); // claims from now on wake the other workers instead
        return worker.stop();
      },
    ]);
    stops.push(["forwarder", () => forwarder.stop()]);
    componentLogger("worker").info(
      { workerId: settings.workerId },
      `${settings.workerId} started: ${settings.concurrency} loop(s), batches of ${settings.batchSize}`,
    );

    // Alerts and retention run on timers of their own beside the worker's loops, never inside them.
    const alerts = startAlertEvaluator({ getDb, role, log: (m) => componentLogger("alerts").warn(m) });
    stops.push(["alert evaluator", () => alerts.stop()]);
    const retention = startEmbeddedRetention({ getDb, role, log: (m) => componentLogger("retention").info(m) });
    if (retention) stops.push(["retention", () => retention.stop()]);
  }

  if (host === "app") {
    // Replay runs an earlier process left running (killed, restarted) continue from their cursor.
    startEmbeddedReplays();
    stops.push(["replay drivers", stopEmbeddedReplays]);
  }

  for (const [name, stop] of stops) lifecycle.onStop("work", name, stop);
}
