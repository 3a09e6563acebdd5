import { randomUUID } from "node:crypto";
import { anyMatch, decodeBase64, hmacSha256 } from "./crypto";
import { badSignature, idAt, isObject, type Provider, type RequestHeaders } from "./types";
import { versionFromIso, versionOf } from "./time";

/**
 * The object id as exact text. Shopify ids can exceed 2^53 (test notifications use 18 digits), which
 * JSON.parse rounds; the GraphQL id carries the same number as a string.
 */
export function shopifyId(payload: Record<string, unknown>): string | undefined {
  const gid = payload.admin_graphql_api_id;
  const m = typeof gid === "string" ? /\/(\d+)$/.exec(gid) : null;
  return m?.[1] ?? idAt(payload, "id");
}

/**
 * A Shopify header under either name: webhooks send `X-Shopify-Topic`, the newer Events deliveries
 * `Shopify-Topic` (no `X-`). Blank counts as absent.
 */
function shopifyHeader(headers: RequestHeaders, name: string): string | undefined {
  for (const full of [`x-shopify-${name}`, `shopify-${name}`]) {
    const value = headers.get(full)?.trim();
    if (value) return value;
  }
  return undefined;
}

/** "orders" → "order", "Product" → "product": one object of the topic's resource. */
function singular(resource: string): string {
  const lower = resource.toLowerCase();
  return lower.endsWith("s") ? lower.slice(0, -1) : lower;
}

const SIGNATURE_HEADERS = ["x-shopify-hmac-sha256", "shopify-hmac-sha256"] as const;

export const shopify: Provider = {
  kind: "shopify",
  label: "Shopify",
  signatureHeaders: SIGNATURE_HEADERS,
  // One order's JSON arrives as orders/create, orders/paid, …: a re-sent capture is a duplicate on its topic only.
  unsignedId: "type",
  verify({ rawBody, headers, secrets }) {
    const values = new Set<string>();
    for (const name of SIGNATURE_HEADERS) {
      const value = headers.get(name)?.trim();
      if (value) values.add(value);
    }
    if (values.size === 0) return badSignature("missing X-Shopify-Hmac-Sha256 (or Shopify-Hmac-Sha256) header");
    const sigs = [...values].map(decodeBase64).filter((sig): sig is Buffer => sig !== undefined);
    if (sigs.length < values.size) return badSignature("malformed X-Shopify-Hmac-Sha256 header (want base64)");
    // Shopify signs no timestamp (nor its ids): as for GitHub, the claim on the body's hash is the replay defence.
    return anyMatch(secrets, sigs, (secret) => hmacSha256(secret, rawBody))
      ? { ok: true }
      : badSignature("signature mismatch");
  },
  describe(payload, headers) {
    const eventHeader = shopifyHeader(headers, "event-id");
    const webhookId = shopifyHeader(headers, "webhook-id");
    if (!eventHeader && !webhookId)
      return { ok: false, reason: "missing event id (X-Shopify-Event-Id or X-Shopify-Webhook-Id header)" };
    const topic = shopifyHeader(headers, "topic");
    if (!topic) return { ok: false, reason: "missing event type (X-Shopify-Topic header)" };
    if (!isObject(payload)) return { ok: false, reason: "payload is not a JSON object" };
    // Events deliveries name the resource ("Product") and say the action in a header of its own.
    const action = shopifyHeader(headers, "action");
    const eventType = action && !topic.includes("/") ? `${topic}/${action}` : topic;
    // Shopify's duplicate guidance keys on the event id, but one merchant action shares it across every
    // delivery it produces (orders/create and orders/paid alike): scoped by topic, two subscriptions to one
    // topic still collapse and no other topic is ever dropped. Older deliveries carry only the webhook id.
    const eventId = eventHeader ? `${eventHeader}:${eventType}` : webhookId!;
    // Their body is no REST resource: the object's GraphQL id is in Shopify-Resource-Id.
    const gid = /^gid:\/\/shopify\/[A-Za-z]+\/(\d+)$/.exec(shopifyHeader(headers, "resource-id") ?? "");
    const id = shopifyId(payload) ?? gid?.[1];
    const type = singular(topic.split("/")[0] ?? topic);
    return {
      ok: true,
      event: {
        eventId,
        eventType,
        entity: id ? { type, id, ...versionOf(versionFromIso(payload.updated_at, "updated_at")) } : undefined,
      },
    };
  },
  sign({ rawBody, secret, now, eventId, eventType }) {
    return {
      "content-type": "application/json",
      "x-shopify-hmac-sha256": hmacSha256(secret, rawBody).toString("base64"),
      "x-shopify-topic": eventType,
      "x-shopify-event-id": eventId,
      // One per delivery (a retry reuses it); the event id is what dedups.
      "x-shopify-webhook-id": randomUUID(),
      "x-shopify-triggered-at": new Date(now * 1000).toISOString(),
    };
  },
};
