import { getClaimDb } from "@/db";
import { getEnv } from "@/lib/env";
import { connectDedupCache } from "@/lib/intake/dedup-cache";
import { confirmFromProviders } from "@/lib/replay/confirm";
import { replayApiConfigFromEnv } from "@/lib/replay/sources";
import { componentLogger, getLogger } from "@/lib/log";
import { refusalsFromEnv, sourcesFromEnv } from "@/lib/sources/from-env";
import type { ReceiverDeps } from "./receive";

let deps: ReceiverDeps | undefined;

export function receiverDepsFromEnv(): ReceiverDeps {
  if (deps) return deps;
  const env = getEnv();
  const logger = getLogger();
  const dedupLogger = componentLogger("dedup-cache", logger);
  deps = {
    getDb: getClaimDb,
    config: {
      sources: sourcesFromEnv(),
      toleranceSeconds: env.WEBHOOK_TOLERANCE_SECONDS,
      maxBytes: env.WEBHOOK_MAX_BYTES,
      maxDepth: env.WEBHOOK_MAX_DEPTH,
      claim: {
        timeoutMs: env.WEBHOOK_CLAIM_TIMEOUT_MS,
        maxQueue: env.WEBHOOK_QUEUE_MAX,
        maxQueueBytes: env.WEBHOOK_QUEUE_MAX_BYTES,
      },
      replayTokens: env.REPLAY_TOKEN,
      claimMode: env.CLAIM_MODE,
    },
    // Messages carry their own "[webhooks] slug: …" prefix; what went wrong is `err` (message and code, never a payload).
    log: (message, err) => logger.warn(err === undefined ? {} : { err }, message),
    confirmReplay: confirmFromProviders(replayApiConfigFromEnv(env)),
    refusals: refusalsFromEnv(),
    dedup: env.DEDUP_CACHE_URL
      ? connectDedupCache({
          url: env.DEDUP_CACHE_URL,
          ttlSeconds: env.DEDUP_CACHE_TTL_SECONDS,
          log: (m) => dedupLogger.warn(m),
        })
      : undefined,
  };
  return deps;
}
