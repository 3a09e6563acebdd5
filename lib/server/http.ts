import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getDb as getMainDb, type Db } from "@/db";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { checkHealth, checkLiveness, checkReadiness, type WorkerProbe } from "@/lib/health";
import type { Lifecycle } from "@/lib/lifecycle";
import { componentLogger, getLogger, requestIdFor, type Logger } from "@/lib/log";
import { createDbGaugeReader, getMetrics, scrapeAllowed, type DbGaugeReader, type LedgerMetrics } from "@/lib/metrics";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { handleNodeWebhook, observeDelivery, type DeliveryObserver } from "@/lib/receiver/node";
import { webhookSegment } from "@/lib/receiver/path";
import type { ReceiveAnswer, ReceiverDeps } from "@/lib/receiver/receive";
import { afterClaim, embeddedWorkerProbe } from "@/lib/worker/embedded";
import { SECURITY_HEADERS } from "./security-headers";

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    ...SECURITY_HEADERS, // as Next would have added to /api/health, which used to answer through it
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

/**
 * How long a client may take to send a request's headers, and the whole request: node's own bounds,
 * for every path (the webhook path's body has a tighter one, WEBHOOK_BODY_TIMEOUT_MS). Past either,
 * node answers 408 and closes. It checks every `checkIntervalMs`, so that is the slack on both.
 */
export const SERVER_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1000 };

/** What the operations endpoints read; each defaults to the process's own. */
export interface OpsOptions {
  logger?: Logger;
  metrics?: LedgerMetrics;
  /** GET /metrics needs `Authorization: Bearer <token>` when set (default METRICS_TOKEN). */
  metricsToken?: string;
  /** The database health, readiness and the gauges read (default: the main pool). */
  getDb?: () => Promise<Db>;
  /** The ledger gauges (default: read through `getDb`, one query set per 5 s). */
  gauges?: DbGaugeReader;
  /** Readiness's worker check (default: the embedded worker, when WORKER_MODE=embedded). */
  worker?: WorkerProbe;
  /** A claim's work (default: the embedded worker's fast path, or a NOTIFY to the standalone ones). */
  onWork?: (work: NonNullable<ReceiveAnswer["work"]>) => void;
}

const pathOf = (url: string | undefined) => (url ?? "").split("?", 1)[0];

/**
 * The process's HTTP server: POST /api/webhooks/* straight on node:http (the same receiver as the Next
 * route handler, without the framework's per-request cost), GET /metrics and /api/health{,/live,/ready}
 * likewise, everything else to Next when it is given. Every answer carries an `x-request-id`. Registered
 * with the lifecycle: on shutdown it stops accepting, answers deliveries still arriving on open connections
 * with 503, and waits for those in flight.
 */
export async function startLedgerServer(
  opts: OpsOptions & {
    host: string;
    port: number;
    lifecycle: Lifecycle;
    next?: NodeHandler;
    /** Failed requests to Next (default: the logger). */
    log?: (message: string) => void;
    /** Tests: a receiver of their own (and bounds of their own, `deps.limits`), instead of the environment's. */
    deps?: ReceiverDeps;
    /** Tests: tighter bounds than SERVER_TIMEOUTS. */
    timeouts?: Partial<typeof SERVER_TIMEOUTS>;
  },
): Promise<{ server: Server; url: string }> {
  const { lifecycle, next } = opts;
  const logger = componentLogger("ledger", opts.logger ?? getLogger());
  const log = opts.log ?? ((m: string) => logger.error(m));
  const deps = opts.deps ?? receiverDepsFromEnv();
  const env = getEnv();
  const timeouts = { ...SERVER_TIMEOUTS, ...opts.timeouts };
  const serverOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
  };
  const metrics = opts.metrics ?? getMetrics();
  const getDb = opts.getDb ?? getMainDb;
  const gaugeLogger = componentLogger("metrics", opts.logger ?? getLogger());
  metrics.useDatabase(
    opts.gauges ??
      createDbGaugeReader({
        query: async (q) => (await getDb()).execute(q),
        onError: (err) => gaugeLogger.warn({ err }, "the ledger's gauges could not be read"),
      }),
  );
  const metricsToken = "metricsToken" in opts ? opts.metricsToken : env.METRICS_TOKEN;
  const worker = opts.worker ?? embeddedWorkerProbe();
  const observer: DeliveryObserver = { logger: componentLogger("webhooks", opts.logger ?? getLogger()), metrics };
  const onWork = opts.onWork ?? ((work) => void afterClaim(work));
  const healthLogger = componentLogger("health", opts.logger ?? getLogger());

  const serveMetrics: NodeHandler = async (req, res) => {
    if (!scrapeAllowed(req.headers.authorization, metricsToken))
      return json(res, 401, { error: "a bearer token is required" }, { "www-authenticate": 'Bearer realm="metrics"' });
    const { contentType, body } = await metrics.render();
    res.writeHead(200, {
      "content-type": contentType,
      "content-length": Buffer.byteLength(body),
      ...SECURITY_HEADERS,
      "cache-control": "no-store",
    });
    res.end(body);
  };
  // Answered here for every process, before Next: cheap, and still answering when Next is busy or wedged.
  const ops = new Map<string, NodeHandler>([
    ["/metrics", serveMetrics],
    [
      "/api/health",
      async (_req, res) => {
        const health = await checkHealth(getDb, undefined, healthLogger);
        json(res, health.ok ? 200 : 503, health);
      },
    ],
    ["/api/health/live", async (_req, res) => json(res, 200, checkLiveness())],
    [
      "/api/health/ready",
      async (_req, res) => {
        const ready = await checkReadiness({ getDb, worker, logger: healthLogger });
        json(res, ready.ok ? 200 : 503, ready);
      },
    ],
  ]);

  const server = createServer(serverOptions, (req, res) => {
    const requestId = requestIdFor(req, res);
    const segment = req.method === "POST" ? webhookSegment(req.url ?? "") : undefined;
    if (segment !== undefined) {
      if (lifecycle.stopping) {
        // The provider retries elsewhere (another instance) or later; nothing was read or written.
        res.shouldKeepAlive = false;
        const answer: ReceiveAnswer = {
          status: 503,
          body: { error: "shutting down, retry later" },
          headers: { "retry-after": "1", connection: "close" },
          outcome: "unavailable",
        };
        json(res, answer.status, answer.body, answer.headers);
        return observeDelivery(deps, observer, {
          slug: segment,
          answer,
          requestId,
          ms: 0,
        });
      }
      void handleNodeWebhook(req, res, deps, onWork, observer, segment);
      return;
    }
    const op = req.method === "GET" ? ops.get(pathOf(req.url) ?? "") : undefined;
    const answer = op ? op(req, res) : next ? next(req, res) : fallback(req, res);
    answer.catch((err: unknown) => {
      if (op) logger.error({ err, requestId, path: pathOf(req.url) }, "request failed");
      else log(`request failed (${requestId}): ${describeError(err)}`);
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

async function fallback(_req: IncomingMessage, res: ServerResponse): Promise<void> {
  json(res, 404, {
    error: "this process serves only POST /api/webhooks/{source}, GET /metrics and GET /api/health{,/live,/ready}",
  });
}
