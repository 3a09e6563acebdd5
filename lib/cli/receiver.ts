import { getDbHandle } from "@/db";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { createLifecycle, exitOnSignals } from "@/lib/lifecycle";
import { componentLogger } from "@/lib/log";
import { startEmbeddedReplays } from "@/lib/replay/embedded";
import { checkSourcesAtStart, registerAppStops } from "@/lib/server/app";
import { startLedgerServer } from "@/lib/server/http";
import { startEmbeddedWorker } from "@/lib/worker/embedded";

/**
 * `npm run receiver`: the intake alone (webhooks, health, the embedded worker and replay resumer), no
 * console and no build step. A dedicated intake tier behind the load balancer; the fault tests run it.
 */
const env = getEnv();
const log = componentLogger("receiver");
checkSourcesAtStart((m) => log.fatal(m));
const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS, log: (m) => log.info(m) });
try {
  await getDbHandle(); // migrate at start rather than on the first delivery
} catch (err) {
  // Keep serving: deliveries answer 503 and each one tries the database again.
  log.error({ err }, `database not ready: ${describeError(err)}`);
}
const { url } = await startLedgerServer({ host: env.HOST, port: env.PORT, lifecycle });
if (startEmbeddedWorker()) log.info("embedded worker started (WORKER_MODE=embedded)");
startEmbeddedReplays();
registerAppStops(lifecycle);
exitOnSignals(lifecycle);
log.info({ url }, `listening on ${url}`);
