import { hostname } from "node:os";
import type { Env } from "@/lib/env";
import { handlerLookup, type HandlerLookup } from "@/lib/handlers/registry";
import type { RetryPolicy } from "@/lib/ledger/types";
import { PROVIDER_KINDS, type ProviderKind } from "@/lib/providers/types";
import type { ProviderApi } from "@/lib/handlers/dispatch";
import { providerApiFromEnv } from "@/lib/handlers/provider-api";

export interface WorkerSettings {
  workerId: string;
  concurrency: number;
  batchSize: number;
  leaseMs: number;
  pollMs: number;
  /** A worker transaction's statement bound, longer than the pool's. */
  statementTimeoutMs: number;
  policy: RetryPolicy;
  handlers: HandlerLookup;
  /** How often to merge the subject index's pending list (lib/worker/index-merge.ts); absent or 0: never. */
  indexMergeMs?: number;
  /** Where a tie nothing else orders is asked about (STRIPE_API_KEY, PADDLE_API_KEY); absent: none. */
  providerApi?: ProviderApi;
}

/**
 * Events per batch when WORKER_BATCH_SIZE is unset. A standalone worker (`npm run worker`) spends less CPU per event
 * in larger batches. In the app's process the worker shares the event loop with the claims, and a batch of 250's
 * longer stretches of JavaScript held them up until some timed out (503); batches of 100 do not (docs/benchmarks.md).
 */
export const DEFAULT_BATCH_SIZE = { embedded: 100, standalone: 250 } as const;

/** `kindOf`: a source's provider kind by slug (lib/sources); without it, only kind-named slugs are known. */
export function workerSettingsFromEnv(
  env: Env,
  role: string,
  kindOf?: (slug: string) => ProviderKind | undefined,
): WorkerSettings {
  return {
    workerId: `${role}@${hostname()}:${process.pid}`,
    concurrency: env.WORKER_CONCURRENCY,
    batchSize:
      env.WORKER_BATCH_SIZE ?? (role === "worker" ? DEFAULT_BATCH_SIZE.standalone : DEFAULT_BATCH_SIZE.embedded),
    leaseMs: env.WORKER_LEASE_MS,
    pollMs: env.WORKER_POLL_MS,
    statementTimeoutMs: env.WORKER_STATEMENT_TIMEOUT_MS,
    indexMergeMs: env.WORKER_INDEX_MERGE_MS,
    policy: {
      maxAttempts: env.WORKER_MAX_ATTEMPTS,
      backoffBaseMs: env.WORKER_BACKOFF_BASE_MS,
      backoffMaxMs: env.WORKER_BACKOFF_MAX_MS,
    },
    handlers: handlerLookup(undefined, kindOf),
    providerApi: providerApiFromEnv(
      env,
      kindOf ?? ((slug) => ((PROVIDER_KINDS as readonly string[]).includes(slug) ? (slug as ProviderKind) : undefined)),
    ),
  };
}
