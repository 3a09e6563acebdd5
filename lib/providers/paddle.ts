import { anyMatch, hmacSha256, parseTimestampedHeader } from "./crypto";
import { badSignature, checkTolerance, idAt, isObject, type Provider } from "./types";
import { versionFromIso, versionOf } from "./time";

export const paddle: Provider = {
  kind: "paddle",
  label: "Paddle",
  signatureHeaders: ["paddle-signature"],
  verify({ rawBody, headers, secrets, toleranceSeconds, now }) {
    const header = headers.get("paddle-signature");
    if (!header) return badSignature("missing Paddle-Signature header");
    const { timestamp: ts, signatures: h1 } = parseTimestampedHeader(header, {
      separator: ";",
      timestampKey: "ts",
      signatureKey: "h1",
    });
    if (ts === undefined || h1.length === 0) return badSignature("malformed Paddle-Signature header (want ts=…;h1=…)");
    const ok = anyMatch(secrets, h1, (secret) => hmacSha256(secret, `${ts}:`, rawBody));
    if (!ok) return badSignature("signature mismatch");
    return checkTolerance(ts, now, toleranceSeconds);
  },
  describe(payload) {
    const eventId = idAt(payload, "event_id");
    if (!eventId) return { ok: false, reason: "missing event id (payload.event_id)" };
    const eventType = idAt(payload, "event_type");
    if (!eventType) return { ok: false, reason: "missing event type (payload.event_type)" };
    const p = payload as Record<string, unknown>;
    const id = idAt(p.data, "id");
    const type = eventType.split(".")[0] ?? eventType;
    return {
      ok: true,
      event: {
        eventId,
        eventType,
        entity:
          id && isObject(p.data) ? { type, id, ...versionOf(versionFromIso(p.occurred_at, "occurred_at")) } : undefined,
      },
    };
  },
  sign({ rawBody, secret, now }) {
    const h1 = hmacSha256(secret, `${now}:`, rawBody).toString("hex");
    return { "content-type": "application/json", "paddle-signature": `ts=${now};h1=${h1}` };
  },
};
