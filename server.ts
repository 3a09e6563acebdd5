import { createServer } from "node:http";
import next from "next";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { handleNodeWebhook, WEBHOOK_PATH } from "@/lib/receiver/node";
import { afterClaim } from "@/lib/worker/embedded";

/**
 * `npm start`: the built Next app, with POST /api/webhooks/* answered straight on node:http.
 * The receiver is the same lib/ function the Next route handler calls (kept for `next dev`);
 * this path skips the framework's per-request work, which cost ~10x the claim itself.
 */
const env = getEnv();
const hostname = env.HOST;
const app = next({ dev: false, hostname, port: env.PORT });
const handle = app.getRequestHandler();

await app.prepare();
const deps = receiverDepsFromEnv();
const server = createServer((req, res) => {
  if (req.method === "POST" && WEBHOOK_PATH.test(req.url ?? "")) {
    void handleNodeWebhook(req, res, deps, (work) => void afterClaim(work));
    return;
  }
  handle(req, res).catch((err: unknown) => {
    console.error("[ledger] request failed:", describeError(err));
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(env.PORT, hostname, () => console.log(`[ledger] listening on http://${hostname}:${env.PORT}`));

const shutdown = () => {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 10_000).unref();
};
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
