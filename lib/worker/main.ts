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
