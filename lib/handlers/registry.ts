import type { Source } from "@/lib/providers/types";
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

export type HandlerLookup = (source: Source, eventType: string) => Handler | undefined;

export function handlerLookup(handlers: readonly Handler[] = BUILT_IN_HANDLERS): HandlerLookup {
  const byKey = new Map<string, Handler>();
  for (const h of handlers)
    for (const type of h.types) {
      const key = `${h.source}\u0000${type}`;
      if (byKey.has(key)) throw new Error(`two handlers for ${h.source} ${type}`);
      byKey.set(key, h);
    }
  return (source, eventType) => byKey.get(`${source}\u0000${eventType}`);
}
