import { hostname } from "node:os";
import type { Db } from "@/db/client";
import { getEnv, type Env } from "@/lib/env";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { alertChannelsFromEnv, type AlertChannels } from "./channels";
import { createAlertEvaluator, type AlertEvaluator, type AlertSettings } from "./evaluator";
import { defaultRules, type EffectiveRule } from "./rules";
import type { AlertRule } from "@/db/schema/alerts";

export function alertSettingsFromEnv(env: Env, role: string): AlertSettings {
  return {
    evaluatorId: `${role}@${hostname()}:${process.pid}`,
    evaluateMs: env.ALERT_EVALUATE_MS,
    sendTimeoutMs: env.ALERT_SEND_TIMEOUT_MS,
    maxAttempts: env.ALERT_MAX_ATTEMPTS,
    backoffBaseMs: env.ALERT_BACKOFF_BASE_MS,
    backoffMaxMs: 30 * 60_000,
    batchSize: 20,
    consoleUrl: env.APP_URL,
    resolveAfterMs: env.ALERT_RESOLVE_AFTER_MINUTES * 60_000,
  };
}

/** This deploy's channels and the rules' defaults, as the evaluator and the console see them. */
export function alertConfigFromEnv(env: Env = getEnv()): {
  channels: AlertChannels;
  defaults: Record<AlertRule, EffectiveRule>;
  evaluateMs: number;
} {
  return { channels: alertChannelsFromEnv(env), defaults: defaultRules(), evaluateMs: env.ALERT_EVALUATE_MS };
}

/**
 * The process's evaluator, started beside its worker (lib/server/start-process-work.ts) on its own timer. Several
 * processes are safe (the evaluation's lock, the outbox's leases).
 */
export function startAlertEvaluator(opts: {
  getDb: () => Promise<Db>;
  role: string;
  log: (message: string) => void;
}): AlertEvaluator {
  const env = getEnv();
  const { channels, defaults } = alertConfigFromEnv(env);
  for (const p of channels.problems) opts.log(p.message);
  const evaluator = createAlertEvaluator({
    getDb: opts.getDb,
    settings: alertSettingsFromEnv(env, opts.role),
    channels,
    defaults,
    listSources: async () => (await sourcesFromEnv().list()).map((s) => ({ slug: s.slug, state: s.state })),
    log: opts.log,
  });
  evaluator.start();
  return evaluator;
}
