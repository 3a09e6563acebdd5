import { anyMatch, decodeBase64, hmacSha256 } from "./crypto";
import { idAt, isObject, type Provider } from "./types";
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

export const shopify: Provider = {
  source: "shopify",
  verify({ rawBody, headers, secrets }) {
    const header = headers.get("x-shopify-hmac-sha256");
    if (!header) return { ok: false, reason: "missing X-Shopify-Hmac-Sha256 header" };
    const sig = decodeBase64(header.trim());
    if (!sig) return { ok: false, reason: "malformed X-Shopify-Hmac-Sha256 header (want base64)" };
    return anyMatch(secrets, [sig], (secret) => hmacSha256(secret, rawBody))
      ? { ok: true }
      : { ok: false, reason: "signature mismatch" };
  },
  describe(payload, headers) {
    // X-Shopify-Webhook-Id is stable across retries of one delivery; X-Shopify-Event-Id stays in headers.
    const eventId = headers.get("x-shopify-webhook-id");
    if (!eventId) return { ok: false, reason: "missing event id (X-Shopify-Webhook-Id header)" };
    const topic = headers.get("x-shopify-topic");
    if (!topic) return { ok: false, reason: "missing event type (X-Shopify-Topic header)" };
    if (!isObject(payload)) return { ok: false, reason: "payload is not a JSON object" };
    const id = shopifyId(payload);
    const resource = topic.split("/")[0] ?? topic;
    // "orders" → "order": the entity is one object of the topic's resource.
    const type = resource.endsWith("s") ? resource.slice(0, -1) : resource;
    return {
      ok: true,
      event: {
        eventId,
        eventType: topic,
        entity: id ? { type, id, ...versionOf(versionFromIso(payload.updated_at, "updated_at")) } : undefined,
      },
    };
  },
};
