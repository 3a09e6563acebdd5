import { anyMatch, hmacSha256, parseTimestampedHeader } from "./crypto";
import { versionFromInteger, versionOf } from "./time";
import { checkTolerance, idAt, isObject, type Provider } from "./types";

export const stripe: Provider = {
  source: "stripe",
  verify({ rawBody, headers, secrets, toleranceSeconds, now }) {
    const header = headers.get("stripe-signature");
    if (!header) return { ok: false, reason: "missing Stripe-Signature header" };
    const { timestamp: t, signatures: v1 } = parseTimestampedHeader(header, {
      separator: ",",
      timestampKey: "t",
      signatureKey: "v1",
    });
    if (t === undefined || v1.length === 0)
      return { ok: false, reason: "malformed Stripe-Signature header (want t=…,v1=…)" };
    // The key is the whole whsec_… string, not its decoded form.
    const ok = anyMatch(secrets, v1, (secret) => hmacSha256(secret, `${t}.`, rawBody));
    if (!ok) return { ok: false, reason: "signature mismatch" };
    return checkTolerance(t, now, toleranceSeconds);
  },
  describe(payload) {
    const eventId = idAt(payload, "id");
    if (!eventId) return { ok: false, reason: "missing event id (payload.id)" };
    const eventType = idAt(payload, "type");
    if (!eventType) return { ok: false, reason: "missing event type (payload.type)" };
    const created = isObject(payload) ? payload.created : undefined;
    const data = isObject(payload) ? payload.data : undefined;
    const object = isObject(data) ? data.object : undefined;
    const objectType = idAt(object, "object");
    const objectId = idAt(object, "id");
    // The entity version is event.created: data.object.created never changes across updates.
    const version = versionOf(versionFromInteger(created, "event.created"));
    return {
      ok: true,
      event: {
        eventId,
        eventType,
        entity: objectType && objectId ? { type: objectType, id: objectId, ...version } : undefined,
      },
    };
  },
};
