import { anyMatch, decodeHex, hmacSha256 } from "./crypto";
import { checkTolerance, idAt, isObject, parseUnixSeconds, type Provider } from "./types";

/** `t=…,v1=…[,v1=…]`: timestamp and every v1 signature (several while Stripe rolls a secret). */
function parseHeader(header: string) {
  let t: number | undefined;
  const v1: Buffer[] = [];
  for (const part of header.split(",")) {
    const [k, v] = part.split("=", 2).map((s) => s.trim());
    if (k === "t") t = parseUnixSeconds(v);
    else if (k === "v1" && v) {
      const sig = decodeHex(v);
      if (sig) v1.push(sig);
    }
  }
  return { t, v1 };
}

export const stripe: Provider = {
  source: "stripe",
  signatureHeader: "Stripe-Signature",
  verify({ rawBody, headers, secrets, toleranceSeconds, now }) {
    const header = headers.get("stripe-signature");
    if (!header) return { ok: false, reason: "missing Stripe-Signature header" };
    const { t, v1 } = parseHeader(header);
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
    const version = typeof created === "number" && Number.isSafeInteger(created) ? created : undefined;
    return {
      ok: true,
      event: {
        eventId,
        eventType,
        entity: objectType && objectId ? { type: objectType, id: objectId, version } : undefined,
      },
    };
  },
};
