import { randomUUID } from "node:crypto";
import { PROVIDERS } from "@/lib/providers";
import type { LegacyKind } from "@/lib/sources/declared";

/**
 * Signs a demo body the way each provider does (the providers' own `sign`, node:crypto only), so the
 * demo and `npm run db:seed` need no provider SDK at run time. The id travels in the kind's header
 * where it has one (a retry reuses it); the type, for the kinds that carry it in a header, is read from
 * the delivery's own headers.
 */
export function signDelivery(
  source: LegacyKind,
  body: string,
  secret: string,
  extra: { id?: string; headers?: Record<string, string> } = {},
): Record<string, string> {
  const h = extra.headers ?? {};
  const eventType = h["x-shopify-topic"] ?? h["x-github-event"] ?? "demo";
  const signed = PROVIDERS[source].sign?.({
    rawBody: body,
    secret,
    now: Math.floor(Date.now() / 1000),
    eventId: extra.id ?? (source === "standard" ? `msg_${randomUUID()}` : randomUUID()),
    eventType,
  });
  if (!signed) throw new Error(`the ${source} secret cannot sign (a public key)`);
  return { ...signed, ...h };
}
