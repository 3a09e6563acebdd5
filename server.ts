import next from "next";
import { getEnv } from "@/lib/env";
import { createLifecycle, exitOnSignals } from "@/lib/lifecycle";
import { componentLogger } from "@/lib/log";
import { checkSourcesAtStart, registerAppStops } from "@/lib/server/app";
import { startLedgerServer } from "@/lib/server/http";

/**
 * `npm start`: the built Next app, with POST /api/webhooks/* answered straight on node:http.
 * Next's instrumentation (instrumentation.ts) migrates and starts the embedded worker and replays;
 * SIGTERM drains them all (lib/lifecycle.ts) and exits 0 within SHUTDOWN_TIMEOUT_MS.
 */
const env = getEnv();
const log = componentLogger("ledger");
checkSourcesAtStart((m) => log.fatal(m));
const app = next({ dev: false, hostname: env.HOST, port: env.PORT });
await app.prepare();
const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS, log: (m) => log.info(m) });
const handle = app.getRequestHandler();
const { url } = await startLedgerServer({
  host: env.HOST,
  port: env.PORT,
  lifecycle,
  next: (req, res) => handle(req, res),
});
registerAppStops(lifecycle);
exitOnSignals(lifecycle);
log.info({ url }, `listening on ${url}`);
