import type { IncomingMessage, ServerResponse } from "node:http";
import { EnvSchema } from "@/lib/env";
import { decodeSegment } from "@/lib/ledger/params";
import { componentLogger, requestIdFor, type Logger } from "@/lib/log";
import { deliveryOutcomeLabel, getMetrics, type LedgerMetrics } from "@/lib/metrics";
import { BodyAbortedError, BodyBudgetError, BodyTimeoutError, readNodeBodyLimited } from "./body";
import { createBodyBudget, type BodyBudget } from "./body-budget";
import { receiveDelivery, type ReceiveAnswer, type ReceiverDeps } from "./receive";

export const WEBHOOK_PATH = /^\/api\/webhooks\/([^/?#]+)\/?(?:\?.*)?$/;

function nodeHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** The edge's bounds on a delivery's body, apart from its size (ReceiverConfig.maxBytes). */
export interface NodeIntakeLimits {
  /** The whole body must have arrived this long after the headers (WEBHOOK_BODY_TIMEOUT_MS); else 408. */
  bodyTimeoutMs: number;
  /** Bytes of not-yet-verified bodies held across every connection (WEBHOOK_UNVERIFIED_MAX_BYTES); past it 503. */
  budget: BodyBudget;
}

let defaultLimits: NodeIntakeLimits | undefined;

/** The environment's defaults, one budget per process, for callers that pass no limits of their own. */
export function defaultIntakeLimits(): NodeIntakeLimits {
  defaultLimits ??= {
    bodyTimeoutMs: EnvSchema.shape.WEBHOOK_BODY_TIMEOUT_MS.parse(undefined),
    budget: createBodyBudget(EnvSchema.shape.WEBHOOK_UNVERIFIED_MAX_BYTES.parse(undefined)),
  };
  return defaultLimits;
}

const reject = (status: number, error: string, headers?: Record<string, string>): ReceiveAnswer => ({
  status,
  body: { error },
  headers,
  outcome: "rejected",
});

/** A refusal while the body was being read: the connection is closed after the answer (the rest is never read). */
function bodyRefusal(err: unknown, limits: NodeIntakeLimits): ReceiveAnswer | undefined {
  // The source was known (its body was being read): receiveDelivery recorded these as `bad_body`.
  const refusal = "bad_body" as const;
  if (err instanceof BodyTimeoutError)
    return { ...reject(408, `the body did not arrive within ${limits.bodyTimeoutMs} ms`), refusal };
  if (err instanceof BodyBudgetError)
    return {
      ...reject(503, "too many deliveries are being received at once, retry later", { "retry-after": "1" }),
      refusal,
    };
  if (err instanceof BodyAbortedError)
    return { ...reject(400, "the connection closed before the body was complete"), refusal };
  return undefined;
}

/** Where a delivery's answer is counted and logged; each defaults to the process's own. */
export interface DeliveryObserver {
  logger?: Logger;
  metrics?: LedgerMetrics;
}

export interface AnsweredDelivery {
  /** The slug in the path, when it could be read. */
  slug?: string;
  answer: ReceiveAnswer;
  requestId: string;
  /** From the request's arrival to its answer. */
  ms: number;
  /** From the body read to the claim's answer, for answers that reached the claim. */
  claimMs?: number;
  bytes?: number;
}

const CLAIM_OUTCOMES = new Set(["claimed", "duplicate", "unavailable"]);
let webhooksLogger: Logger | undefined;

/**
 * One delivery answered: counted by source and outcome, and one log line (never a header's value or a byte
 * of the body). The source label is the slug only for a source this process knows, so a scan of random
 * paths cannot grow the metrics without bound.
 */
export function observeDelivery(deps: ReceiverDeps, observer: DeliveryObserver, d: AnsweredDelivery): void {
  const metrics = observer.metrics ?? getMetrics();
  const logger = observer.logger ?? (webhooksLogger ??= componentLogger("webhooks"));
  const { answer } = d;
  const known = d.slug !== undefined && deps.config.sources.kindOf(d.slug) !== undefined;
  const outcome = deliveryOutcomeLabel(answer.outcome, answer.refusal);
  metrics.deliveries.inc({ source: known ? d.slug : "unknown", outcome });
  const claimMs = d.claimMs !== undefined && CLAIM_OUTCOMES.has(answer.outcome) ? d.claimMs : undefined;
  if (claimMs !== undefined) metrics.claimDuration.observe({ outcome: answer.outcome }, claimMs / 1000);
  logger.info(
    {
      requestId: d.requestId,
      source: d.slug ?? null,
      eventId: answer.work?.eventId,
      outcome,
      status: answer.status,
      ms: Math.round(d.ms * 10) / 10,
      claimMs: claimMs === undefined ? undefined : Math.round(claimMs * 10) / 10,
      bytes: d.bytes,
      cached: answer.cached,
    },
    "delivery answered",
  );
}

/**
 * POST /api/webhooks/{source} straight on node:http: the same receiver as the Next route handler,
 * without the framework's per-request cost on the one path providers hammer. The body is bounded in
 * size (413), time (408) and the process's budget for unverified bytes (503); whenever it was not
 * read to its end the answer closes the connection, so the rest of it is never read either.
 */
export async function handleNodeWebhook(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ReceiverDeps,
  onWork?: (work: NonNullable<ReceiveAnswer["work"]>) => void,
  limits: NodeIntakeLimits = defaultIntakeLimits(),
  observer: DeliveryObserver = {},
): Promise<void> {
  const started = performance.now();
  const requestId = requestIdFor(req, res);
  const deadline = started + limits.bodyTimeoutMs;
  const lease = limits.budget.open();
  // Answered (or the connection gone): the bytes this request held are free for the next one.
  res.once("close", () => lease.release());
  let answer: ReceiveAnswer;
  let slug: string | undefined;
  let bodyReadAt: number | undefined;
  let bytes: number | undefined;
  const match = WEBHOOK_PATH.exec(req.url ?? "");
  if (req.method !== "POST") {
    answer = reject(405, "use POST", { allow: "POST" });
  } else if (!match) {
    answer = reject(404, "no such endpoint");
  } else {
    const source = decodeSegment(match[1]!, "the source in the path", 64);
    if (!source.ok) {
      answer = reject(source.status, source.error);
    } else {
      slug = source.value;
      const readBody = async (limit: number) => {
        const body = await readNodeBodyLimited(req, limit, { lease, timeoutMs: deadline - performance.now() });
        bodyReadAt = performance.now();
        bytes = body.length;
        return body;
      };
      try {
        // The peer as this process sees it (behind a proxy, the proxy): refusal metadata says where it came from.
        const remoteAddr = req.socket.remoteAddress;
        answer = await receiveDelivery(source.value, { headers: nodeHeaders(req), readBody, remoteAddr }, deps);
      } catch (err) {
        answer = bodyRefusal(err, limits) ?? reject(500, "internal error");
        if (answer.status === 500) deps.log?.(`[webhooks] ${source.value}: unexpected error`, err);
      }
    }
  }
  const body = JSON.stringify(answer.body);
  // A body not read to its end (refused, or never wanted): close rather than drain it for keep-alive.
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  const close = hasBody && !req.complete;
  if (close) res.shouldKeepAlive = false;
  res.writeHead(answer.status, {
    ...answer.headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    ...(close ? { connection: "close" } : {}),
  });
  res.end(body, () => {
    // node ends the socket after a Connection: close answer; destroy it if the client is slow to let go.
    if (close) setTimeout(() => req.socket.destroy(), 1000).unref();
  });
  const answeredAt = performance.now();
  if (answer.work) onWork?.(answer.work);
  observeDelivery(deps, observer, {
    slug,
    answer,
    requestId,
    ms: answeredAt - started,
    claimMs: bodyReadAt === undefined ? undefined : answeredAt - bodyReadAt,
    bytes,
  });
}
