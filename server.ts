import next from "next";
import { DEMO_FILE, readDemo } from "@/lib/demo/demo-file";
import { getEnv } from "@/lib/env";
import { createLifecycle, exitOnSignals } from "@/lib/lifecycle";
import { componentLogger } from "@/lib/log";
import { checkSourcesAtStart, prepareDatabase, registerAppStops } from "@/lib/server/app";
import { startLedgerServer } from "@/lib/server/http";
import { startProcessWork } from "@/lib/server/start-process-work";

/**
 * `npm start`, all of it: the built Next app, with POST /api/webhooks/* answered straight on node:http; the
 * database migrated and the first admin created; the process's work (lib/server/start-process-work.ts).
 * SIGTERM drains them all (lib/lifecycle.ts) and exits 0 within SHUTDOWN_TIMEOUT_MS.
 */
const env = getEnv();
const log = componentLogger("ledger");
checkSourcesAtStart((m) => log.fatal(m));
const app = next({ dev: false, hostname: env.HOST, port: env.PORT });
await app.prepare();
const demo = readDemo();
await prepareDatabase(log, { demo: demo && { ...demo, file: DEMO_FILE } });
const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS, log: (m) => log.info(m) });
const handle = app.getRequestHandler();
const { url } = await startLedgerServer({
  host: env.HOST,
  port: env.PORT,
  lifecycle,
  next: (req, res) => handle(req, res),
});
startProcessWork({ host: "app", lifecycle, env });
registerAppStops(lifecycle);
exitOnSignals(lifecycle);
log.info({ url }, `listening on ${url}`);
