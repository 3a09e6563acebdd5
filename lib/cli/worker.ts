import { connectPostgres } from "@/db/client";
import { migratePostgresUrl } from "@/db/migrate";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { createLifecycle, exitOnSignals } from "@/lib/lifecycle";
import { componentLogger } from "@/lib/log";
import { startProcessWork } from "@/lib/server/start-process-work";

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
    statementTimeoutMs: env.WORKER_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    applicationName: "webhook-ledger worker",
  });
  const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS, log: (m) => logger.info(m) });
  startProcessWork({ host: "worker", database: () => Promise.resolve(handle), lifecycle, env });
  lifecycle.onStop("connections", "database pool", () => handle.close());
  exitOnSignals(lifecycle);
}

main().catch((err: unknown) => {
  logger.fatal({ err }, `failed to start: ${describeError(err)}`);
  process.exit(1);
});
