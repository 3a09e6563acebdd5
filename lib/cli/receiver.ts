import { getEnv } from "@/lib/env";
import { createLifecycle, exitOnSignals } from "@/lib/lifecycle";
import { componentLogger } from "@/lib/log";
import { checkSourcesAtStart, prepareDatabase, registerAppStops } from "@/lib/server/app";
import { startLedgerServer } from "@/lib/server/http";
import { startProcessWork } from "@/lib/server/start-process-work";

/**
 * `npm run receiver`: the intake alone (webhooks, health, the embedded worker and replay resumer), no
 * console and no build step. A dedicated intake tier behind the load balancer; the fault tests run it.
 */
const env = getEnv();
const log = componentLogger("receiver");
checkSourcesAtStart((m) => log.fatal(m));
const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS, log: (m) => log.info(m) });
await prepareDatabase(log);
const { url } = await startLedgerServer({ host: env.HOST, port: env.PORT, lifecycle });
startProcessWork({ host: "app", lifecycle, env });
registerAppStops(lifecycle);
exitOnSignals(lifecycle);
log.info({ url }, `listening on ${url}`);
