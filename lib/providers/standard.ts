import { anyMatch, decodeBase64, hmacSha256 } from "./crypto";
import { checkTolerance, idAt, isObject, parseUnixSeconds, type Provider } from "./types";
import { versionFromIso, versionOf } from "./time";

/** The key is the base64 after `whsec_` (the spec's secret format); a bare base64 string also works. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
}

export const standard: Provider = {
  source: "standard",
  verify({ rawBody, headers, secrets, toleranceSeconds, now }) {
    const id = headers.get("webhook-id");
    const tsHeader = headers.get("webhook-timestamp");
    const header = headers.get("webhook-signature");
    if (!header) return { ok: false, reason: "missing webhook-signature header" };
    if (!id) return { ok: false, reason: "missing webhook-id header" };
    const ts = parseUnixSeconds(tsHeader);
    if (ts === undefined) return { ok: false, reason: "missing or malformed webhook-timestamp header" };
    // Space-separated `v1,<base64>` entries; other versions (v1a: asymmetric) are not ours to check.
    const sigs = header
      .split(" ")
      .filter((p) => p.startsWith("v1,"))
      .map((p) => decodeBase64(p.slice(3)))
      .filter((b): b is Buffer => b !== undefined);
    if (sigs.length === 0) return { ok: false, reason: "malformed webhook-signature header (want v1,<base64>)" };
    const ok = anyMatch(secrets, sigs, (secret) => hmacSha256(keyOf(secret), `${id}.${ts}.`, rawBody));
    if (!ok) return { ok: false, reason: "signature mismatch" };
    return checkTolerance(ts, now, toleranceSeconds);
  },
  describe(payload, headers) {
    const eventId = headers.get("webhook-id");
    if (!eventId) return { ok: false, reason: "missing event id (webhook-id header)" };
    const eventType = idAt(payload, "type");
    if (!eventType) return { ok: false, reason: "missing event type (payload.type)" };
    const data = isObject(payload) ? payload.data : undefined;
    const id = idAt(data, "id");
    const version = versionOf(versionFromIso(isObject(payload) ? payload.timestamp : undefined, "timestamp"));
    const type = eventType.split(".")[0] ?? eventType;
    return { ok: true, event: { eventId, eventType, entity: id ? { type, id, ...version } : undefined } };
  },
};
