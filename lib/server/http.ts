import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describeError } from "@/lib/errors";
import { checkHealth } from "@/lib/health";
import type { Lifecycle } from "@/lib/lifecycle";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { handleNodeWebhook, WEBHOOK_PATH } from "@/lib/receiver/node";
import { afterClaim } from "@/lib/worker/embedded";

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
  res.end(text);
}

/**
 * The process's HTTP server: POST /api/webhooks/* straight on node:http (the same receiver as the Next
 * route handler, without the framework's per-request cost), everything else to Next when it is given,
 * else /api/health alone (a receiver-only process). Registered with the lifecycle: on shutdown it
 * stops accepting, answers deliveries still arriving on open connections with 503, and waits for those
 * in flight.
 */
export async function startLedgerServer(opts: {
  host: string;
  port: number;
  lifecycle: Lifecycle;
  next?: NodeHandler;
  log?: (message: string) => void;
}): Promise<{ server: Server; url: string }> {
  const { lifecycle, next } = opts;
  const log = opts.log ?? ((m: string) => console.log(m));
  const deps = receiverDepsFromEnv();
  const server = createServer((req, res) => {
    if (req.method === "POST" && WEBHOOK_PATH.test(req.url ?? "")) {
      if (lifecycle.stopping) {
        // The provider retries elsewhere (another instance) or later; nothing was read or written.
        res.shouldKeepAlive = false;
        return json(res, 503, { error: "shutting down, retry later" }, { "retry-after": "1", connection: "close" });
      }
      void handleNodeWebhook(req, res, deps, (work) => void afterClaim(work));
      return;
    }
    const answer = next ? next(req, res) : fallback(req, res);
    answer.catch((err: unknown) => {
      log(`[ledger] request failed: ${describeError(err)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  lifecycle.onStop(
    "intake",
    "http server",
    () =>
      new Promise<void>((resolve) => {
        // close() stops accepting and drops the keep-alive connections idle now; one busy now goes idle after
        // its answer and would stay open until keepAliveTimeout (65 s), so idle ones are dropped until none is left.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://${opts.host}:${port}` };
}

async function fallback(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "GET" && (req.url === "/api/health" || req.url?.startsWith("/api/health?"))) {
    const health = await checkHealth();
    return json(res, health.ok ? 200 : 503, health);
  }
  json(res, 404, { error: "this process serves only POST /api/webhooks/{source} and GET /api/health" });
}
