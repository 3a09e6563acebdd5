import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { checkHealth } from "@/lib/health";
import type { Lifecycle } from "@/lib/lifecycle";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { createBodyBudget } from "@/lib/receiver/body-budget";
import { handleNodeWebhook, WEBHOOK_PATH, type NodeIntakeLimits } from "@/lib/receiver/node";
import type { ReceiverDeps } from "@/lib/receiver/receive";
import { afterClaim } from "@/lib/worker/embedded";

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(text);
}

/**
 * How long a client may take to send a request's headers, and the whole request: node's own bounds,
 * for every path (the webhook path's body has a tighter one, WEBHOOK_BODY_TIMEOUT_MS). Past either,
 * node answers 408 and closes. It checks every `checkIntervalMs`, so that is the slack on both.
 */
export const SERVER_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1000 };

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
  /** Tests: a receiver of their own, instead of the environment's. */
  deps?: ReceiverDeps;
  /** Tests: tighter bounds than the environment's (WEBHOOK_BODY_TIMEOUT_MS, WEBHOOK_UNVERIFIED_MAX_BYTES). */
  limits?: Partial<NodeIntakeLimits>;
  /** Tests: tighter bounds than SERVER_TIMEOUTS. */
  timeouts?: Partial<typeof SERVER_TIMEOUTS>;
}): Promise<{ server: Server; url: string; limits: NodeIntakeLimits }> {
  const { lifecycle, next } = opts;
  const log = opts.log ?? ((m: string) => console.log(m));
  const deps = opts.deps ?? receiverDepsFromEnv();
  const env = getEnv();
  const limits: NodeIntakeLimits = {
    bodyTimeoutMs: opts.limits?.bodyTimeoutMs ?? env.WEBHOOK_BODY_TIMEOUT_MS,
    budget: opts.limits?.budget ?? createBodyBudget(env.WEBHOOK_UNVERIFIED_MAX_BYTES),
  };
  const timeouts = { ...SERVER_TIMEOUTS, ...opts.timeouts };
  const serverOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
  };
  const server = createServer(serverOptions, (req, res) => {
    if (req.method === "POST" && WEBHOOK_PATH.test(req.url ?? "")) {
      if (lifecycle.stopping) {
        // The provider retries elsewhere (another instance) or later; nothing was read or written.
        res.shouldKeepAlive = false;
        return json(res, 503, { error: "shutting down, retry later" }, { "retry-after": "1", connection: "close" });
      }
      void handleNodeWebhook(req, res, deps, (work) => void afterClaim(work), limits);
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
  return { server, url: `http://${opts.host}:${port}`, limits };
}

async function fallback(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "GET" && (req.url === "/api/health" || req.url?.startsWith("/api/health?"))) {
    const health = await checkHealth();
    return json(res, health.ok ? 200 : 503, health);
  }
  json(res, 404, { error: "this process serves only POST /api/webhooks/{source} and GET /api/health" });
}
