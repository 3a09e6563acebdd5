import { createHash } from "node:crypto";
import { Webhook } from "standardwebhooks";
import type { ForwardFormat } from "@/db/schema/forward";
import { PROVIDERS } from "@/lib/providers";
import { activeSecrets, type ResolvedSource } from "@/lib/sources/types";

/** An event as the forwarder sends it: what arrived (byte-exact) and what the ledger knows of it. */
export interface ForwardedEvent {
  destination: string;
  source: string;
  eventId: string;
  eventType: string;
  receivedAt: Date;
  entity: { type: string; id: string; version: number | null } | null;
  rawBody: string;
  headers: Record<string, string>;
}

export interface Message {
  headers: Record<string, string>;
  body: string;
}

/**
 * The `webhook-id` of one (destination, event): the same on every retry and replay, different across events and
 * destinations, so the receiving side can deduplicate on it. Derived, not stored: it survives a destination being
 * removed and added again.
 */
export function forwardId(e: Pick<ForwardedEvent, "destination" | "source" | "eventId">): string {
  const h = createHash("sha256").update(`${e.destination}\u0000${e.source}\u0000${e.eventId}`).digest("hex");
  return `fwd_${h.slice(0, 32)}`;
}

/**
 * The standard envelope. The provider's payload goes in as the exact bytes that arrived (it parsed as JSON at the
 * claim), so what the team reads is what the provider sent, not a re-serialisation.
 */
export function envelope(e: ForwardedEvent): string {
  const head = JSON.stringify({
    id: e.eventId,
    source: e.source,
    type: e.eventType,
    receivedAt: e.receivedAt.toISOString(),
    entity: e.entity,
  });
  return `${head.slice(0, -1)},"payload":${e.rawBody}}`;
}

/** Signed per the Standard Webhooks spec with every current secret (space-separated), so a rotation overlaps. */
export function standardMessage(e: ForwardedEvent, secrets: readonly string[], now: Date): Message {
  const body = envelope(e);
  const id = forwardId(e);
  const signature = secrets.map((s) => new Webhook(s).sign(id, now, body)).join(" ");
  return {
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signature,
    },
  };
}

/** Hop-by-hop and proxy headers of the original delivery: this hop's own, never passed on. */
const NOT_PASSED_ON = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "expect",
  "accept-encoding",
  "forwarded",
  "x-real-ip",
  "user-agent",
]);

/**
 * The provider's exact body and headers, re-signed with the source's newest secret where the provider can sign
 * (every kind here but an ed25519 public key): a timestamped signature (Stripe, Slack, Paddle, Standard) would be
 * too old to verify after a retry, and an endpoint that verifies the provider's signature sits behind Ledger
 * unchanged. `x-ledger-forward-id` carries the forward's stable id.
 */
export function providerMessage(e: ForwardedEvent, source: ResolvedSource | undefined, now: Date): Message {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.headers))
    if (!NOT_PASSED_ON.has(k) && !k.startsWith("x-forwarded-")) headers[k] = v;
  const secret = source ? activeSecrets(source, now.getTime()).at(-1) : undefined;
  const signed =
    source && secret
      ? PROVIDERS[source.provider].sign?.({
          rawBody: e.rawBody,
          secret,
          now: Math.floor(now.getTime() / 1000),
          eventId: e.eventId,
          eventType: e.eventType,
          options: source.options,
        })
      : undefined;
  return { body: e.rawBody, headers: { ...headers, ...signed, "x-ledger-forward-id": forwardId(e) } };
}

export function messageFor(
  format: ForwardFormat,
  e: ForwardedEvent,
  deps: { secrets: readonly string[]; source?: ResolvedSource; now: Date },
): Message {
  return format === "provider" ? providerMessage(e, deps.source, deps.now) : standardMessage(e, deps.secrets, deps.now);
}
