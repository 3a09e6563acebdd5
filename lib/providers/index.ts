import type { Env } from "@/lib/env";
import { github } from "./github";
import { paddle } from "./paddle";
import { shopify } from "./shopify";
import { slack } from "./slack";
import { standard } from "./standard";
import { stripe } from "./stripe";
import type { Provider, Source } from "./types";

export * from "./types";

export const PROVIDERS: Record<Source, Provider> = { stripe, github, shopify, paddle, slack, standard };

export const SECRET_KEYS = {
  stripe: "STRIPE_WEBHOOK_SECRET",
  github: "GITHUB_WEBHOOK_SECRET",
  shopify: "SHOPIFY_WEBHOOK_SECRET",
  paddle: "PADDLE_WEBHOOK_SECRET",
  slack: "SLACK_SIGNING_SECRET",
  standard: "STANDARD_WEBHOOK_SECRET",
} as const satisfies Record<Source, keyof Env>;

export type SecretsBySource = Record<Source, readonly string[]>;

export function secretsFromEnv(env: Env): SecretsBySource {
  const out = {} as Record<Source, readonly string[]>;
  for (const source of Object.keys(SECRET_KEYS) as Source[]) out[source] = env[SECRET_KEYS[source]];
  return out;
}
