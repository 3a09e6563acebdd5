import { setFlagsFromString } from "node:v8";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { startAlertEvaluator, stopAlertEvaluator } from "@/lib/alerts/from-env";
import { connectPostgres } from "@/db/client";
import { migratePostgresUrl } from "@/db/migrate";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { createLifecycle, exitOnSignals } from "@/lib/lifecycle";
import { componentLogger } from "@/lib/log";
import { startEmbeddedRetention, stopEmbeddedRetention } from "@/lib/retention/embedded";
import { createWorker } from "./run";
import { workerSettingsFromEnv } from "./settings";
import { WAKE_CHANNEL } from "./wake";

const logger = componentLogger("worker");

// TurboFan inlines Array.prototype.map and friends into the hot path, and the arrays it builds there are holey
// where the builtin's are packed: each function that had seen only one kind deoptimizes and is compiled again
// (the batch guard four times, its entity lock three: about a third of the compiler's time in a cold drain,
// docs/benchmarks.md). Called out of line, each compiles once. Set before any hot code is compiled. V8 skips (and
// prints) a flag it does not know, so a Node without this one loses only the saving; as a node option, an unknown
// flag would stop the worker from starting.
setFlagsFromString("--no-turbo-inline-array-builtins");
// A function is optimised after about 8× V8's default budget of bytecode executed (66k → 540k): in a cold
// 20,000-event drain TurboFan then compiles 66 functions in 153 ms instead of 229 in 518 ms, and the worker's CPU per
// event there fell by about 8 µs (a tenth); after 80,000 events, no change either way (docs/benchmarks.md). The
// app's process, which also serves pages, keeps V8's default. Read at each function's next budget reset, so
// setting it here, after the imports ran once, is enough.
setFlagsFromString("--interrupt-budget=540000");

/** `npm run worker`: a standalone worker process, for scaling out beside the app. */
async function main() {
  const env = getEnv();
  if (!env.DATABASE_URL) {
    logger.fatal(
      "npm run worker needs DATABASE_URL: the embedded database belongs to the app process (its worker runs inside it).",
    );
    process.exit(2);
  }
  await migratePostgresUrl(env.DATABASE_URL);
  const handle = connectPostgres(env.DATABASE_URL, {
    max: env.WORKER_CONCURRENCY + 2,
    prepare: env.DATABASE_PREPARE,
    statementTimeoutMs: env.WORKER_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    applicationName: "webhook-ledger worker",
  });
  const settings = workerSettingsFromEnv(env, "worker", (slug) => sourcesFromEnv().kindOf(slug));
  const worker = createWorker({
    getDb: () => Promise.resolve(handle.db),
    settings,
    logger,
    listen: (onWake) => handle.listen!(WAKE_CHANNEL, onWake),
  });
  const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS, log: (m) => logger.info(m) });
  lifecycle.onStop("work", "worker", () => worker.stop());
  lifecycle.onStop("work", "alert evaluator", stopAlertEvaluator);
  lifecycle.onStop("work", "retention", stopEmbeddedRetention);
  lifecycle.onStop("connections", "database pool", () => handle.close());
  exitOnSignals(lifecycle);
  worker.start();
  startAlertEvaluator({
    getDb: () => Promise.resolve(handle.db),
    role: "worker",
    log: (m) => console.log(`[alerts] ${m}`),
  });
  // A deployment with only standalone workers (WORKER_MODE=off in the app) still prunes.
  startEmbeddedRetention({
    getDb: () => Promise.resolve(handle.db),
    role: "worker",
    log: (m) => componentLogger("retention").info(m),
  });
  logger.info(
    { workerId: settings.workerId },
    `${settings.workerId} started: ${settings.concurrency} loop(s), batches of ${settings.batchSize}`,
  );
}

main().catch((err: unknown) => {
  logger.fatal({ err }, `failed to start: ${describeError(err)}`);
  process.exit(1);
});
