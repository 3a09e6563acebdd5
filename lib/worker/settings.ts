import { hostname } from "node:os";
import type { Env } from "@/lib/env";
import { handlerLookup, type HandlerLookup } from "@/lib/handlers/registry";
import type { RetryPolicy } from "@/lib/ledger/types";

export interface WorkerSettings {
  workerId: string;
  concurrency: number;
  batchSize: number;
  leaseMs: number;
  pollMs: number;
  policy: RetryPolicy;
  handlers: HandlerLookup;
}

export function workerSettingsFromEnv(env: Env, role: string): WorkerSettings {
  return {
    workerId: `${role}@${hostname()}:${process.pid}`,
    concurrency: env.WORKER_CONCURRENCY,
    batchSize: env.WORKER_BATCH_SIZE,
    leaseMs: env.WORKER_LEASE_MS,
    pollMs: env.WORKER_POLL_MS,
    policy: { maxAttempts: env.WORKER_MAX_ATTEMPTS, backoffBaseMs: env.WORKER_BACKOFF_BASE_MS, backoffMaxMs: env.WORKER_BACKOFF_MAX_MS },
    handlers: handlerLookup(),
  };
}
