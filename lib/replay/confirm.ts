import { envVar as readEnvVar } from "@/lib/env";
import { stripeOptions } from "@/lib/providers/stripe";
import type { ResolvedSource } from "@/lib/sources/types";
import { getJson, ReplayHttpError, type HttpOptions } from "./http";
import type { ReplayApiConfig } from "./types";

/**
 * The provider's own copy of an event, or that it has none, or why the token may not replay at this
 * source; undefined when the source's kind cannot be asked (the token is trusted there).
 */
export type Confirmation = { found: true; payload: unknown; rawBody: string } | { found: false } | { refused: string };
/** Which token let the replay in: a `source:token` of REPLAY_TOKEN, or a bare one every source accepts. */
export type ReplayScope = "source" | "global";
export type ConfirmReplay = (
  source: ResolvedSource,
  eventId: string,
  scope: ReplayScope,
) => Promise<Confirmation | undefined>;

/** The API key a Stripe source is confirmed with, or the variable that should have held it. */
function stripeKeyOf(
  source: ResolvedSource,
  config: ReplayApiConfig,
  envVar: (name: string) => string | undefined,
): { key?: string; missing: string } {
  const named = stripeOptions(source.options).replayApiKeyEnv;
  if (named) return { key: envVar(named) || undefined, missing: `${named} is not set` };
  // STRIPE_API_KEY belongs to the account STRIPE_WEBHOOK_SECRET's endpoint is in; another source may be another account.
  if (source.origin.kind === "env") return { key: config.stripe.key, missing: "STRIPE_API_KEY is not set" };
  return { missing: "the source names no API key variable (options.replayApiKeyEnv)" };
}

/**
 * A replay token lets its holder post an event without a signature; where the provider can be asked for
 * an event by id (Stripe: GET /v1/events/{id}), every source of that kind stores the provider's copy
 * instead of the posted one, so a token can bring back real events but never invent or alter one. A
 * Stripe source without a key refuses the token, unless its options allow its own token unconfirmed.
 * GitHub (deliveries are looked up by numeric id, not by the delivery guid) and Paddle (no event by id)
 * cannot be asked: there the token is trusted as it is (README, Security).
 */
export function confirmFromProviders(
  config: ReplayApiConfig,
  http: HttpOptions = {},
  envVar: (name: string) => string | undefined = readEnvVar,
): ConfirmReplay {
  return async (source, eventId, scope) => {
    if (source.provider !== "stripe") return undefined;
    let key: string | undefined;
    let missing: string;
    let unconfirmedAllowed: boolean;
    try {
      ({ key, missing } = stripeKeyOf(source, config, envVar));
      unconfirmedAllowed = stripeOptions(source.options).allowUnconfirmedReplay === true;
    } catch {
      return { refused: `replay token refused at "${source.slug}": its options are not valid` };
    }
    if (!key) {
      if (scope === "source" && unconfirmedAllowed) return undefined;
      const allow =
        scope === "global"
          ? "a bare REPLAY_TOKEN (every source) is never accepted unconfirmed"
          : "to accept this source's own token unconfirmed, set options.allowUnconfirmedReplay";
      return {
        refused: `replay token refused at "${source.slug}": Stripe can confirm its events, but ${missing}; ${allow}`,
      };
    }
    const url = new URL(`/v1/events/${encodeURIComponent(eventId)}`, config.stripe.base).toString();
    try {
      const { body } = await getJson(
        url,
        { authorization: `Bearer ${key}` },
        { attempts: 2, timeoutMs: 5000, ...http, secrets: [key] },
      );
      return { found: true, payload: body, rawBody: JSON.stringify(body) };
    } catch (err) {
      if (err instanceof ReplayHttpError && err.status === 404) return { found: false };
      throw err;
    }
  };
}
