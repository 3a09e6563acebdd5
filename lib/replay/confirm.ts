import type { ProviderKind } from "@/lib/providers/types";
import { getJson, ReplayHttpError, type HttpOptions } from "./http";
import type { ReplayApiConfig } from "./types";

/** The provider's own copy of an event, or that it has none; undefined when the source cannot be asked. */
export type Confirmation = { found: true; payload: unknown; rawBody: string } | { found: false };
export type ConfirmReplay = (source: ProviderKind, eventId: string) => Promise<Confirmation | undefined>;

/**
 * A replay token lets its holder post an event without a signature; where the provider can be asked for
 * an event by id (Stripe: GET /v1/events/{id}) and a key is configured, the receiver stores the provider's
 * copy instead of the posted one, so a token can bring back real events but never invent or alter one.
 * GitHub (deliveries are looked up by numeric id, not by the delivery guid) and Paddle (no event by id)
 * cannot be asked: there the token is trusted as it is (README, Security).
 */
export function confirmFromProviders(config: ReplayApiConfig, http: HttpOptions = {}): ConfirmReplay {
  return async (source, eventId) => {
    if (source !== "stripe" || !config.stripe.key) return undefined;
    const url = new URL(`/v1/events/${encodeURIComponent(eventId)}`, config.stripe.base).toString();
    try {
      const { body } = await getJson(
        url,
        { authorization: `Bearer ${config.stripe.key}` },
        { attempts: 2, timeoutMs: 5000, ...http, secrets: [config.stripe.key] },
      );
      return { found: true, payload: body, rawBody: JSON.stringify(body) };
    } catch (err) {
      if (err instanceof ReplayHttpError && err.status === 404) return { found: false };
      throw err;
    }
  };
}
