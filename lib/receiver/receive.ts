import type { Db } from "@/db/client";
import { describeError, isDataError, UnavailableError, ValidationError, withinDeadline } from "@/lib/errors";
import { claimBatched, type ClaimBatcherOptions } from "@/lib/intake/batcher";
import type { DedupCache } from "@/lib/intake/dedup-cache";
import { describeDelivery } from "@/lib/intake/describe";
import { jsonDepthExceeds } from "@/lib/intake/json";
import { isSource, PROVIDERS, type SecretsBySource, type Source } from "@/lib/providers";
import type { ConfirmReplay } from "@/lib/replay/confirm";
import { BodyTooLargeError, readBodyLimited } from "./body";
import { ReplayTokenGuard, type ReplayTokens } from "./replay-token";

const guards = new WeakMap<ReceiverConfig, ReplayTokenGuard>();
const guardFor = (config: ReceiverConfig) => {
  let guard = guards.get(config);
  if (!guard) guards.set(config, (guard = new ReplayTokenGuard(config.replayTokens)));
  return guard;
};

export interface ReceiverConfig {
  secrets: SecretsBySource;
  toleranceSeconds: number;
  maxBytes: number;
  /** JSON nesting deeper than this is refused (400) before any write. */
  maxDepth: number;
  /** X-Replay-Token values allowed per source ("*": any source); none → the header is refused. */
  replayTokens: ReplayTokens;
  claimMode: "enforce" | "shadow";
  /** The claim's bounds: answer within timeoutMs, hold at most maxQueue deliveries / maxQueueBytes. */
  claim: Pick<ClaimBatcherOptions, "timeoutMs" | "maxQueue" | "maxQueueBytes">;
}

export interface ReceiverDeps {
  getDb: () => Promise<Db>;
  config: ReceiverConfig;
  /** Unix seconds; injectable for tests of the tolerance window. */
  now?: () => number;
  log?: (message: string, err?: unknown) => void;
  /** Where the provider can be asked, a replayed event is stored as the provider's own copy (lib/replay/confirm.ts). */
  confirmReplay?: ConfirmReplay;
  /** Optional Redis in front of the ledger (DEDUP_CACHE_URL): a retry of a committed claim answers from it. */
  dedup?: DedupCache;
}

export type ReceiveOutcome = "claimed" | "duplicate" | "handshake" | "rejected" | "unavailable";

/** A delivery as any HTTP layer sees it: the Fetch API's Request, or node:http's IncomingMessage. */
export interface IncomingDelivery {
  headers: Headers;
  /** Reads at most `limit` bytes; throws BodyTooLargeError past it. */
  readBody(limit: number): Promise<Buffer>;
}

export interface ReceiveAnswer {
  status: number;
  body: Record<string, unknown>;
  /** Extra response headers (Retry-After on a 503). */
  headers?: Record<string, string>;
  outcome: ReceiveOutcome;
  /** Answered from the dedup cache, without a claim statement (so without a webhook_delivery row). */
  cached?: boolean;
  /** The event to hand to the worker's fast path, when there is work (a new claim, or a shadow re-run). */
  work?: { source: Source; eventId: string };
}

export interface ReceiveResult extends Omit<ReceiveAnswer, "status" | "body"> {
  response: Response;
}

const reject = (status: number, error: string): ReceiveAnswer => ({ status, body: { error }, outcome: "rejected" });

/**
 * POST /api/webhooks/{source}, framework-free: verify before any write, then claim.
 * A 2xx is only returned once the claim has committed.
 */
export async function receiveWebhook(source: string, request: Request, deps: ReceiverDeps): Promise<ReceiveResult> {
  const { status, body, ...rest } = await receiveDelivery(
    source,
    { headers: request.headers, readBody: (limit) => readBodyLimited(request, limit) },
    deps,
  );
  return { ...rest, response: Response.json(body, { status, headers: rest.headers }) };
}

export async function receiveDelivery(
  source: string,
  request: IncomingDelivery,
  deps: ReceiverDeps,
): Promise<ReceiveAnswer> {
  const { config } = deps;
  if (!isSource(source)) return reject(404, `unknown source "${source}"`);
  const provider = PROVIDERS[source];
  const secrets = config.secrets[source];
  if (secrets.length === 0) return reject(404, `source "${source}" is not configured`);

  let rawBody: Buffer;
  try {
    rawBody = await request.readBody(config.maxBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) return reject(413, `body exceeds ${config.maxBytes} bytes`);
    throw err;
  }

  const replayHeader = request.headers.get("x-replay-token");
  let via: "provider" | "replay" = "provider";
  if (replayHeader !== null) {
    const verdict = guardFor(config).check(source, replayHeader);
    if (!verdict.ok)
      return {
        ...reject(verdict.status, verdict.reason),
        headers: verdict.retryAfterSeconds ? { "retry-after": String(verdict.retryAfterSeconds) } : undefined,
      };
    via = "replay";
  } else {
    const now = deps.now?.() ?? Math.floor(Date.now() / 1000);
    const verdict = provider.verify({
      rawBody,
      headers: request.headers,
      secrets,
      toleranceSeconds: config.toleranceSeconds,
      now,
    });
    if (!verdict.ok) return reject(401, verdict.reason);
  }

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(rawBody);
  } catch {
    return reject(400, "body is not valid UTF-8");
  }
  // Before the parse: PostgreSQL's jsonb parser has a stack limit (54001), and so does any reader after it.
  if (jsonDepthExceeds(text, config.maxDepth))
    return reject(400, `body is JSON nested deeper than ${config.maxDepth} levels`);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return reject(400, "body is not valid JSON");
  }

  const handshake = provider.handshake?.(payload);
  if (handshake) return { status: 200, body: handshake, outcome: "handshake" };

  let described = describeDelivery({
    source,
    payload,
    rawBody: text,
    headers: request.headers,
    via,
    claimMode: config.claimMode,
  });
  if (!described.ok) return reject(400, described.reason);
  const { eventId } = described.claim;
  if (via === "replay" && deps.confirmReplay) {
    let confirmed;
    try {
      confirmed = await deps.confirmReplay(source, eventId);
    } catch (err) {
      deps.log?.(`[webhooks] ${source}: could not confirm replayed ${eventId} with the provider`, err);
      return {
        status: 503,
        body: { error: "could not confirm the replayed event with the provider, retry later" },
        headers: { "retry-after": "5" },
        outcome: "unavailable",
      };
    }
    if (confirmed?.found === false)
      return reject(422, `the provider has no event ${eventId}: a replay token brings back real events only`);
    if (confirmed?.found) {
      described = describeDelivery({
        source,
        payload: confirmed.payload,
        rawBody: confirmed.rawBody,
        headers: request.headers,
        via,
        claimMode: config.claimMode,
      });
      if (!described.ok) return reject(400, `the provider's copy: ${described.reason}`);
      if (described.claim.eventId !== eventId) return reject(422, `the provider's copy of ${eventId} has another id`);
    }
  }
  // Shadow mode must reach the ledger: a duplicate there may be processed again.
  const dedup = config.claimMode === "enforce" ? deps.dedup : undefined;
  if (dedup && (await dedup.seen(source, eventId)))
    return { status: 200, body: { received: true, duplicate: true }, outcome: "duplicate", cached: true };

  try {
    // Opening the database (first use: connect and migrate) is bounded like the claim itself.
    const db = await withinDeadline(deps.getDb(), config.claim.timeoutMs ?? 2000, "the database was not ready");
    const { claimed, reprocessed } = await claimBatched(db, described.claim, config.claim);
    dedup?.mark(source, eventId); // only now: the claim (or the row it found) is committed
    return {
      status: 200,
      body: { received: true, duplicate: !claimed },
      outcome: claimed ? "claimed" : "duplicate",
      work: claimed || reprocessed ? { source, eventId } : undefined,
    };
  } catch (err) {
    if (err instanceof ValidationError || isDataError(err))
      return reject(400, `payload cannot be stored: ${describeError(err)}`);
    deps.log?.(`[webhooks] ${source}: ledger unavailable`, err);
    const retryAfter = err instanceof UnavailableError ? err.retryAfterSeconds : 1;
    return {
      status: 503,
      body: { error: "ledger unavailable, retry later" },
      headers: { "retry-after": String(retryAfter) },
      outcome: "unavailable",
    };
  }
}
