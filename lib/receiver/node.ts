import type { IncomingMessage, ServerResponse } from "node:http";
import { EnvSchema } from "@/lib/env";
import { decodeSegment } from "@/lib/ledger/params";
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
  if (err instanceof BodyTimeoutError) return reject(408, `the body did not arrive within ${limits.bodyTimeoutMs} ms`);
  if (err instanceof BodyBudgetError)
    return reject(503, "too many deliveries are being received at once, retry later", { "retry-after": "1" });
  if (err instanceof BodyAbortedError) return reject(400, "the connection closed before the body was complete");
  return undefined;
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
): Promise<void> {
  const deadline = performance.now() + limits.bodyTimeoutMs;
  const lease = limits.budget.open();
  // Answered (or the connection gone): the bytes this request held are free for the next one.
  res.once("close", () => lease.release());
  let answer: ReceiveAnswer;
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
      const readBody = (limit: number) =>
        readNodeBodyLimited(req, limit, { lease, timeoutMs: deadline - performance.now() });
      try {
        answer = await receiveDelivery(source.value, { headers: nodeHeaders(req), readBody }, deps);
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
  if (answer.work) onWork?.(answer.work);
}
