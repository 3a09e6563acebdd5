import { anyMatch, decodeHex, hmacSha256 } from "./crypto";
import { versionFromInteger, versionOf } from "./time";
import { badSignature, checkTolerance, idAt, isObject, parseUnixSeconds, type Provider } from "./types";

export const slack: Provider = {
  kind: "slack",
  label: "Slack",
  signatureHeaders: ["x-slack-signature"],
  verify({ rawBody, headers, secrets, toleranceSeconds, now }) {
    const header = headers.get("x-slack-signature");
    if (!header) return badSignature("missing X-Slack-Signature header");
    const ts = parseUnixSeconds(headers.get("x-slack-request-timestamp"));
    if (ts === undefined) return badSignature("missing or malformed X-Slack-Request-Timestamp header");
    const sig = header.startsWith("v0=") ? decodeHex(header.slice(3)) : undefined;
    if (!sig) return badSignature("malformed X-Slack-Signature header (want v0=<hex>)");
    const ok = anyMatch(secrets, [sig], (secret) => hmacSha256(secret, `v0:${ts}:`, rawBody));
    if (!ok) return badSignature("signature mismatch");
    return checkTolerance(ts, now, toleranceSeconds);
  },
  sign({ rawBody, secret, now }) {
    return {
      "content-type": "application/json",
      "x-slack-request-timestamp": String(now),
      "x-slack-signature": `v0=${hmacSha256(secret, `v0:${now}:`, rawBody).toString("hex")}`,
    };
  },
  handshake(payload) {
    if (isObject(payload) && payload.type === "url_verification" && typeof payload.challenge === "string")
      return { challenge: payload.challenge };
    return undefined;
  },
  describe(payload) {
    if (!isObject(payload)) return { ok: false, reason: "payload is not a JSON object" };
    // app_rate_limited carries no event_id: fall back to its stable business fields, never the body.
    if (payload.type === "app_rate_limited") {
      const team = idAt(payload, "team_id");
      const minute = idAt(payload, "minute_rate_limited");
      if (!team || !minute) return { ok: false, reason: "app_rate_limited without team_id/minute_rate_limited" };
      return { ok: true, event: { eventId: `app_rate_limited:${team}:${minute}`, eventType: "app_rate_limited" } };
    }
    const eventId = idAt(payload, "event_id");
    if (!eventId) return { ok: false, reason: "missing event id (payload.event_id)" };
    const inner = payload.event;
    const eventType = idAt(inner, "type") ?? idAt(payload, "type");
    if (!eventType) return { ok: false, reason: "missing event type (payload.event.type)" };
    const channel = idAt(inner, "channel") ?? (isObject(inner) ? idAt(inner.item, "channel") : undefined);
    const time = payload.event_time;
    const version = versionOf(versionFromInteger(time, "event_time"));
    return {
      ok: true,
      event: { eventId, eventType, entity: channel ? { type: "channel", id: channel, ...version } : undefined },
    };
  },
};
