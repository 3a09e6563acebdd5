import type { ReplayRun } from "@/db/schema/replay";
import type { Env } from "@/lib/env";
import { githubLister } from "./github";
import { paddleLister } from "./paddle";
import { stripeLister } from "./stripe";
import { ReplayConfigError, type ListerDeps, type ReplayApiConfig, type ReplayLister } from "./types";

export function replayApiConfigFromEnv(env: Env): ReplayApiConfig {
  return {
    stripe: { base: env.STRIPE_API_BASE, key: env.STRIPE_API_KEY },
    github: { base: env.GITHUB_API_BASE, token: env.GITHUB_TOKEN, hook: env.GITHUB_REPLAY_HOOK },
    paddle: { base: env.PADDLE_API_BASE, key: env.PADDLE_API_KEY },
  };
}

/** "owner/repo/hook_id" → its parts. */
export function parseGithubHook(value: string): { owner: string; repo: string; hookId: string } | undefined {
  const m = /^([\w.-]+)\/([\w.-]+)\/(\d+)$/.exec(value.trim());
  return m?.[1] && m[2] && m[3] ? { owner: m[1], repo: m[2], hookId: m[3] } : undefined;
}

/** Why a source cannot be replayed with this configuration, or undefined when it can. */
export function missingConfig(
  source: ReplayRun["source"],
  config: ReplayApiConfig,
  hasHook = false,
): string | undefined {
  if (source === "stripe" && !config.stripe.key) return "STRIPE_API_KEY is not set";
  if (source === "paddle" && !config.paddle.key) return "PADDLE_API_KEY is not set";
  if (source === "github" && !config.github.token) return "GITHUB_TOKEN is not set";
  if (source === "github" && !hasHook && !config.github.hook)
    return "no GitHub hook: pass owner/repo/hook_id or set GITHUB_REPLAY_HOOK";
  return undefined;
}

/** The event-list client for a run, from its stored window and parameters. */
export function listerFor(
  run: Pick<ReplayRun, "source" | "since" | "until" | "types" | "params">,
  config: ReplayApiConfig,
  deps: ListerDeps,
): ReplayLister {
  const window = { since: run.since, until: run.until, types: run.types };
  const missing = missingConfig(run.source, config, Boolean(run.params.github));
  if (missing) throw new ReplayConfigError(`cannot replay ${run.source}: ${missing}`);
  switch (run.source) {
    case "stripe":
      return stripeLister(
        { base: config.stripe.base, key: config.stripe.key!, window, failedOnly: run.params.stripeFailedOnly },
        deps,
      );
    case "paddle":
      return paddleLister({ base: config.paddle.base, key: config.paddle.key!, window }, deps);
    case "github": {
      const hook = run.params.github ?? parseGithubHook(config.github.hook!);
      if (!hook)
        throw new ReplayConfigError(`cannot replay github: GITHUB_REPLAY_HOOK must look like owner/repo/hook_id`);
      return githubLister({ base: config.github.base, token: config.github.token!, ...hook, window }, deps);
    }
  }
}
