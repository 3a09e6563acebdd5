import { PROVIDER_KINDS, type ProviderKind } from "@/lib/providers/types";
import { paddleSubscription } from "./paddle/subscription";
import { shopifyOrder } from "./shopify/order";
import { stripeInvoicePaid } from "./stripe/invoice-paid";
import { stripeSubscription } from "./stripe/subscription";
import type { Handler } from "./types";

/** Built-in handlers. To add one, see docs/handlers.md. */
export const BUILT_IN_HANDLERS: readonly Handler[] = [
  stripeSubscription,
  stripeInvoicePaid,
  paddleSubscription,
  shopifyOrder,
];

/** The handler for an event of this source (by slug) and type; undefined: none, the event settles as ignored. */
export type HandlerLookup = (source: string, eventType: string) => Handler | undefined;

/** A source this process does not know (yet): the event is retried, never settled as having no handler. */
export class UnknownSourceError extends Error {
  override name = "UnknownSourceError";
}

/** Slugs named after a kind are that kind (every source before sources had slugs). */
const legacyKind = (slug: string): ProviderKind | undefined =>
  (PROVIDER_KINDS as readonly string[]).includes(slug) ? (slug as ProviderKind) : undefined;

export function handlerLookup(
  handlers: readonly Handler[] = BUILT_IN_HANDLERS,
  kindOf: (slug: string) => ProviderKind | undefined = legacyKind,
): HandlerLookup {
  const byKey = new Map<string, Handler>();
  for (const h of handlers)
    for (const type of h.types) {
      const key = `${h.source}\u0000${type}`;
      if (byKey.has(key)) throw new Error(`two handlers for ${h.source} ${type}`);
      byKey.set(key, h);
    }
  return (source, eventType) => {
    const kind = kindOf(source);
    if (!kind) throw new UnknownSourceError(`source "${source}" is not known to this process (yet): retried`);
    return byKey.get(`${kind}\u0000${eventType}`);
  };
}
