import type { Env } from "@/lib/env";
import type { ProviderKind } from "@/lib/providers/types";
import type { ProviderApi } from "./dispatch";

/**
 * The provider API the version guard may ask about a tie: GET one object with the deploy's key. Only for
 * the source named after its kind, whose account the key belongs to (a second Stripe account is another
 * source with another key, not configured here). Bounded: one attempt, a short timeout, no redirects;
 * any answer but 200 throws, and the tie is then recorded for a person.
 */
export function providerApiFromEnv(
  env: Pick<Env, "STRIPE_API_BASE" | "STRIPE_API_KEY" | "PADDLE_API_BASE" | "PADDLE_API_KEY">,
  kindOf: (slug: string) => ProviderKind | undefined,
  opts: { timeoutMs?: number } = {},
): ProviderApi | undefined {
  const keys: Partial<Record<ProviderKind, { base: string; key: string; unwrap: (b: unknown) => unknown }>> = {};
  if (env.STRIPE_API_KEY) keys.stripe = { base: env.STRIPE_API_BASE, key: env.STRIPE_API_KEY, unwrap: (b) => b };
  // Paddle wraps every entity in { data: … }.
  if (env.PADDLE_API_KEY)
    keys.paddle = {
      base: env.PADDLE_API_BASE,
      key: env.PADDLE_API_KEY,
      unwrap: (b) => (b as { data?: unknown } | null)?.data,
    };
  if (Object.keys(keys).length === 0) return undefined;
  return async (source, path) => {
    const kind = kindOf(source);
    const api = kind && source === kind ? keys[kind] : undefined;
    if (!api) return undefined;
    const res = await fetch(new URL(path, api.base), {
      headers: { authorization: `Bearer ${api.key}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(opts.timeoutMs ?? 3000),
    });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    return api.unwrap(await res.json());
  };
}
