import type { Db } from "@/db/client";
import { describeError, isDataError, UnavailableError, ValidationError, withinDeadline } from "@/lib/errors";
import { claimBatched, type ClaimBatcherOptions } from "@/lib/intake/batcher";
import type { DedupCache } from "@/lib/intake/dedup-cache";
import { describeDelivery } from "@/lib/intake/describe";
import { nestingExceeds } from "@/lib/intake/json";
import { PROVIDERS, type RequestHeaders } from "@/lib/providers";
import type { ConfirmReplay, ReplayScope } from "@/lib/replay/confirm";
import type { SourceDirectory } from "@/lib/sources/directory";
import { signatureHeaderOf, type RefusalSink } from "@/lib/sources/refusals";
import { activeSecrets, type ResolvedSource } from "@/lib/sources/types";
import type { RefusalReason } from "@/db/schema/sources";
import { isSourceSlug, printable } from "@/lib/ledger/params";
import { bodyRefusal, readBody, webBody, type BodySource } from "./body";
import { answerHeaders, mustClose } from "./answer";
import { processIntakeLimits, type IntakeLimits } from "./limits";
import { ReplayTokenGuard, type ReplayTokens } from "./replay-token";

const guards = new WeakMap<ReceiverConfig, ReplayTokenGuard>();
const guardFor = (config: ReceiverConfig) => {
  let guard = guards.get(config);
  if (!guard) guards.set(config, (guard = new ReplayTokenGuard(config.replayTokens)));
  return guard;
};

export interface ReceiverConfig {
  /** Every source (endpoint) by slug: declared by the deploy or managed in the console (lib/sources). */
  sources: SourceDirectory;
  /** For a source without a tolerance of its own. */
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
  /** Where a known source's refused deliveries are counted (metadata only, never the body). */
  refusals?: RefusalSink;
  /** The body's time and memory bounds (default: this process's, from the environment). */
  limits?: IntakeLimits;
}

export type ReceiveOutcome = "claimed" | "duplicate" | "handshake" | "rejected" | "unavailable";

/** A delivery as any HTTP layer sees it: the Fetch API's Request, or node:http's IncomingMessage. */
export interface IncomingDelivery {
  headers: RequestHeaders;
  /** Read here, within the bounds, whatever the host. */
  body: BodySource;
  /** The peer's address, for refusal metadata. */
  remoteAddr?: string;
  /** performance.now() when its headers had arrived: the body timeout counts from then (default: now). */
  arrivedAt?: number;
  /** Told the body's size once it has all been read (for the delivery's log line). */
  onBodyRead?: (bytes: number) => void;
}

export interface ReceiveAnswer {
  status: number;
  body: Record<string, unknown>;
  /** Extra response headers (Retry-After on a 503). */
  headers?: Record<string, string>;
  outcome: ReceiveOutcome;
  /** Answered from the dedup cache, without a claim statement (so without a webhook_delivery row). */
  cached?: boolean;
  /** The event that gives the worker work (a new claim, or a shadow re-run): its wake-up names it in a log line. */
  work?: { source: string; eventId: string };
  /** Why a known source refused it (as recorded in webhook_refusal): the metrics' `refused_<reason>`. */
  refusal?: RefusalReason;
}

export interface ReceiveResult extends Omit<ReceiveAnswer, "status" | "body"> {
  response: Response;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

const reject = (status: number, error: string): ReceiveAnswer => ({ status, body: { error }, outcome: "rejected" });

/**
 * POST /api/webhooks/{source} for a Fetch API host (Next's route handler, `source` its decoded param):
 * the same receiveDelivery, bounds and answer as node:http's (lib/receiver/node.ts).
 */
export async function receiveWebhook(source: string, request: Request, deps: ReceiverDeps): Promise<ReceiveResult> {
  const body = webBody(request.body);
  const remoteAddr = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  const answer = await receiveDelivery(source, { headers: request.headers, body, remoteAddr }, deps);
  const { status, body: json, ...rest } = answer;
  const headers = answerHeaders(answer.headers, mustClose(request.headers, body));
  return { ...rest, response: Response.json(json, { status, headers }) };
}

/**
 * The fingerprint of the secret that verified the delivery, recorded with the claim: the proof of arrival
 * a dispute needs once the secret has been rotated out. One active secret is the answer; during a
 * rotation each is tried alone (a few more HMACs, on verified deliveries only).
 */
function whichSecret(
  source: ResolvedSource,
  active: readonly string[],
  verifyWith: (list: readonly string[]) => { ok: boolean },
): string | undefined {
  const match = active.length === 1 ? active[0] : active.find((s) => verifyWith([s]).ok);
  return source.secrets.find((s) => s.value === match)?.fingerprint;
}

const unavailable = (error: string, retryAfter: number): ReceiveAnswer => ({
  status: 503,
  body: { error },
  headers: { "retry-after": String(retryAfter) },
  outcome: "unavailable",
});

/**
 * POST /api/webhooks/{source} for every host, framework-free: the body read within the bounds, verified
 * before any write, then claimed. A 2xx is only returned once the claim has committed.
 */
export async function receiveDelivery(
  slug: string,
  request: IncomingDelivery,
  deps: ReceiverDeps,
): Promise<ReceiveAnswer> {
  const { config } = deps;
  const arrivedAt = request.arrivedAt ?? performance.now();
  // A path segment that decodes to anything but a slug ("x/../stripe") names no source, whatever it resolves to.
  if (!isSourceSlug(slug)) return reject(404, `no source "${printable(slug)}"`);
  // A declared source is known without a read (nor a deadline timer); a console source may need one.
  let found = config.sources.declared(slug);
  if (!found)
    try {
      found = await withinDeadline(
        config.sources.find(slug),
        config.claim.timeoutMs ?? 2000,
        "the sources could not be read",
      );
    } catch (err) {
      deps.log?.(`[webhooks] ${slug}: sources unavailable`, err);
      return unavailable("sources unavailable, retry later", 1);
    }
  if (!found || found.state === "disabled") return reject(404, `no source "${slug}"`);
  const source = found;
  const provider = PROVIDERS[source.provider];
  const refused = (reason: RefusalReason, answer: ReceiveAnswer, size?: number): ReceiveAnswer => {
    deps.refusals?.record({
      source: source.slug,
      reason,
      detail: String(answer.body.error ?? ""),
      status: answer.status,
      size,
      remoteAddr: request.remoteAddr,
      signatureHeader: signatureHeaderOf(provider, source.options, request.headers),
    });
    return { ...answer, refusal: reason };
  };
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const declaredSize = Number.isFinite(declared) ? declared : undefined;
  // Paused: 503, so the provider keeps the delivery and retries it once the source is resumed.
  if (source.state === "paused")
    return refused("paused", unavailable(`source "${slug}" is paused, retry later`, 60), declaredSize);
  const nowMs = deps.now ? deps.now() * 1000 : Date.now();
  const secrets = activeSecrets(source, nowMs);
  if (secrets.length === 0 && source.unsealError) {
    deps.log?.(`[webhooks] ${slug}: ${source.unsealError}`);
    return unavailable("this source's secrets cannot be read, retry later", 30);
  }

  // The body is read here, not by each host: a host only supplies its stream, so none can skip the bounds,
  // whatever path spelling or server brought the delivery here.
  const limits = deps.limits ?? processIntakeLimits();
  let rawBody: Buffer;
  try {
    rawBody = await readBody(request.body, {
      limit: config.maxBytes,
      declared: declaredSize,
      timeoutMs: arrivedAt + limits.bodyTimeoutMs - performance.now(),
      budget: limits.budget,
    });
  } catch (err) {
    const refusal = bodyRefusal(err, { limit: config.maxBytes, timeoutMs: limits.bodyTimeoutMs });
    if (!refusal) throw err;
    return refused(
      refusal.reason,
      { ...reject(refusal.status, refusal.error), headers: refusal.headers },
      declaredSize,
    );
  }
  request.onBodyRead?.(rawBody.length);

  const replayHeader = request.headers.get("x-replay-token");
  let via: "provider" | "replay" = "provider";
  let replayScope: ReplayScope = "global";
  let verifiedWith: string | undefined;
  if (replayHeader !== null) {
    const verdict = guardFor(config).check(slug, replayHeader);
    if (!verdict.ok)
      return refused(
        "bad_signature",
        {
          ...reject(verdict.status, verdict.reason),
          headers: verdict.retryAfterSeconds ? { "retry-after": String(verdict.retryAfterSeconds) } : undefined,
        },
        rawBody.length,
      );
    via = "replay";
    replayScope = verdict.scope;
  } else {
    const verifyWith = (list: readonly string[]) =>
      provider.verify({
        rawBody,
        headers: request.headers,
        secrets: list,
        toleranceSeconds: source.toleranceSeconds ?? config.toleranceSeconds,
        now: Math.floor(nowMs / 1000),
        options: source.options,
      });
    const verdict =
      secrets.length === 0
        ? ({ ok: false, reason: "no secret of this source is active (all expired)", refusal: "bad_signature" } as const)
        : verifyWith(secrets);
    if (!verdict.ok) return refused(verdict.refusal, reject(401, verdict.reason), rawBody.length);
    verifiedWith = whichSecret(source, secrets, verifyWith);
  }

  let text: string;
  try {
    text = UTF8.decode(rawBody);
  } catch {
    return refused("not_json", reject(400, "body is not valid UTF-8"), rawBody.length);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return refused("not_json", reject(400, "body is not valid JSON"), rawBody.length);
  }
  // Before anything looks inside it: PostgreSQL's jsonb parser has a stack limit (54001), and so does any reader after it.
  if (nestingExceeds(payload, config.maxDepth))
    return refused(
      "not_json",
      reject(400, `body is JSON nested deeper than ${config.maxDepth} levels`),
      rawBody.length,
    );

  const handshake = provider.handshake?.(payload);
  if (handshake) return { status: 200, body: handshake, outcome: "handshake" };

  let described = describeDelivery({
    source,
    payload,
    rawBody: text,
    headers: request.headers,
    via,
    claimMode: config.claimMode,
    verifiedWith,
  });
  if (!described.ok) return refused("no_identity", reject(400, described.reason), rawBody.length);
  const { eventId } = described.claim;
  // Every source whose provider can be asked is confirmed with its own key, or refuses the token.
  if (via === "replay" && deps.confirmReplay) {
    let confirmed;
    try {
      confirmed = await deps.confirmReplay(source, eventId, replayScope);
    } catch (err) {
      deps.log?.(`[webhooks] ${slug}: could not confirm replayed ${eventId} with the provider`, err);
      return {
        status: 503,
        body: { error: "could not confirm the replayed event with the provider, retry later" },
        headers: { "retry-after": "5" },
        outcome: "unavailable",
      };
    }
    if (confirmed && "refused" in confirmed)
      return refused("bad_signature", reject(403, confirmed.refused), rawBody.length);
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
  if (dedup && (await dedup.seen(slug, eventId)))
    return { status: 200, body: { received: true, duplicate: true }, outcome: "duplicate", cached: true };

  try {
    // Opening the database (first use: connect and migrate) is bounded like the claim itself.
    const db = await withinDeadline(deps.getDb(), config.claim.timeoutMs ?? 2000, "the database was not ready");
    const { claimed, reprocessed } = await claimBatched(db, described.claim, config.claim);
    dedup?.mark(slug, eventId); // only now: the claim (or the row it found) is committed
    return {
      status: 200,
      body: { received: true, duplicate: !claimed },
      outcome: claimed ? "claimed" : "duplicate",
      work: claimed || reprocessed ? { source: slug, eventId } : undefined,
    };
  } catch (err) {
    if (err instanceof ValidationError || isDataError(err))
      return reject(400, `payload cannot be stored: ${describeError(err)}`);
    deps.log?.(`[webhooks] ${slug}: ledger unavailable`, err);
    const retryAfter = err instanceof UnavailableError ? err.retryAfterSeconds : 1;
    return {
      status: 503,
      body: { error: "ledger unavailable, retry later" },
      headers: { "retry-after": String(retryAfter) },
      outcome: "unavailable",
    };
  }
}
