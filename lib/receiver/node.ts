import type { IncomingMessage, ServerResponse } from "node:http";
import { decodeSegment } from "@/lib/ledger/params";
import { componentLogger, requestIdFor, type Logger } from "@/lib/log";
import { deliveryOutcomeLabel, getMetrics, type LedgerMetrics } from "@/lib/metrics";
import type { RequestHeaders } from "@/lib/providers/types";
import { answerHeaders, mustClose } from "./answer";
import { nodeBody } from "./body";
import { webhookSegment } from "./path";
import { receiveDelivery, type ReceiveAnswer, type ReceiverDeps } from "./receive";

/**
 * The request's headers read as Fetch's Headers reads them (names without case, repeats joined with ", ", iterated
 * in name order), without its per-header validation and copies: node's parser has checked every header already.
 */
class NodeHeaders implements RequestHeaders {
  private readonly byName = new Map<string, string>();

  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const before = this.byName.get(name);
      this.byName.set(name, before === undefined ? raw[i + 1]! : `${before}, ${raw[i + 1]!}`);
    }
  }

  get(name: string): string | null {
    return this.byName.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.byName.has(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name of [...this.byName.keys()].sort()) callback(this.byName.get(name)!, name);
  }
}

const reject = (status: number, error: string, headers?: Record<string, string>): ReceiveAnswer => ({
  status,
  body: { error },
  headers,
  outcome: "rejected",
});

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
 * POST /api/webhooks/{source} straight on node:http: the same receiveDelivery, bounds and answer as Next's
 * route handler, without the framework's per-request cost on the one path providers hammer. Any spelling of
 * the path Next would route there is answered here (lib/receiver/path.ts), so none reaches the route handler.
 */
export async function handleNodeWebhook(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ReceiverDeps,
  onWork?: (work: NonNullable<ReceiveAnswer["work"]>) => void,
  observer: DeliveryObserver = {},
  /** The path's source segment, when the caller has already resolved it (lib/server/http.ts). */
  segment: string | undefined = webhookSegment(req.url ?? ""),
): Promise<void> {
  const arrivedAt = performance.now();
  const requestId = requestIdFor(req, res);
  const headers = new NodeHeaders(req.rawHeaders);
  const body = nodeBody(req);
  let answer: ReceiveAnswer;
  let slug: string | undefined;
  let bodyReadAt: number | undefined;
  let bytes: number | undefined;
  if (req.method !== "POST") {
    answer = reject(405, "use POST", { allow: "POST" });
  } else if (segment === undefined) {
    answer = reject(404, "no such endpoint");
  } else {
    const source = decodeSegment(segment, "the source in the path", 64);
    if (!source.ok) {
      answer = reject(source.status, source.error);
    } else {
      slug = source.value;
      const onBodyRead = (n: number) => {
        bodyReadAt = performance.now();
        bytes = n;
      };
      try {
        // The peer as this process sees it (behind a proxy, the proxy): refusal metadata says where it came from.
        const remoteAddr = req.socket.remoteAddress;
        answer = await receiveDelivery(slug, { headers, body, remoteAddr, arrivedAt, onBodyRead }, deps);
      } catch (err) {
        answer = reject(500, "internal error");
        deps.log?.(`[webhooks] ${slug}: unexpected error`, err);
      }
    }
  }
  const text = JSON.stringify(answer.body);
  // A body not read to its end (refused, or never wanted): close rather than drain it for keep-alive.
  const close = mustClose(headers, body);
  if (close) res.shouldKeepAlive = false;
  res.writeHead(answer.status, { ...answerHeaders(answer.headers, close), "content-length": Buffer.byteLength(text) });
  res.end(text, () => {
    // node ends the socket after a Connection: close answer; destroy it if the client is slow to let go.
    if (close) setTimeout(() => req.socket.destroy(), 1000).unref();
  });
  const answeredAt = performance.now();
  if (answer.work) onWork?.(answer.work);
  observeDelivery(deps, observer, {
    slug,
    answer,
    requestId,
    ms: answeredAt - arrivedAt,
    claimMs: bodyReadAt === undefined ? undefined : answeredAt - bodyReadAt,
    bytes,
  });
}
