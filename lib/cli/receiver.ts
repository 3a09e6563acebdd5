import { getDbHandle } from "@/db";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { createLifecycle, exitOnSignals } from "@/lib/lifecycle";
import { startEmbeddedReplays } from "@/lib/replay/embedded";
import { checkSourcesAtStart, registerAppStops } from "@/lib/server/app";
import { startLedgerServer } from "@/lib/server/http";
import { startEmbeddedWorker } from "@/lib/worker/embedded";

/**
 * `npm run receiver`: the intake alone (webhooks, health, the embedded worker and replay resumer), no
 * console and no build step. A dedicated intake tier behind the load balancer; the fault tests run it.
 */
const env = getEnv();
checkSourcesAtStart((m) => console.error(`[receiver] ${m}`));
const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS, log: (m) => console.log(`[receiver] ${m}`) });
try {
  await getDbHandle(); // migrate at start rather than on the first delivery
} catch (err) {
  // Keep serving: deliveries answer 503 and each one tries the database again.
  console.error(`[receiver] database not ready: ${describeError(err)}`);
}
const { url } = await startLedgerServer({ host: env.HOST, port: env.PORT, lifecycle });
if (startEmbeddedWorker()) console.log("[receiver] embedded worker started (WORKER_MODE=embedded)");
startEmbeddedReplays();
registerAppStops(lifecycle);
exitOnSignals(lifecycle);
console.log(`[receiver] listening on ${url}`);
