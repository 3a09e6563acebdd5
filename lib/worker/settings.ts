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
  /** Fast-path events processed at once, at most; past it the event waits for a loop (it is committed). */
  fastPathConcurrency: number;
  /** Fast-path groups start at most this often (FAST_PATH_LINGER_MS); absent or 0: as soon as one is free. */
  fastPathLingerMs?: number;
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
 * Events per batch when WORKER_BATCH_SIZE is unset. A standalone worker (`npm run worker`) spends 11 % less CPU per
 * event at 250 than at 100 (bench:worker, A/B). In the app's process the worker shares the event loop with the
 * claims, and a batch of 250's longer stretches of JavaScript held them up: claim p99 during a 1,000,000-event
 * drain 150–230 ms and fifty 503s at 250, no 503 at 100 (bench:backlog, docs/benchmarks.md, 2026-12-03).
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
    fastPathConcurrency: env.FAST_PATH_CONCURRENCY,
    fastPathLingerMs: env.FAST_PATH_LINGER_MS,
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
