import { anyMatch, decodeHex, hmacSha256 } from "./crypto";
import { badSignature, idAt, isObject, type EntityRef, type Provider } from "./types";

// The object an event is about, most specific first; the repository is the fallback.
const ENTITY_KEYS = [
  "pull_request",
  "issue",
  "check_run",
  "check_suite",
  "workflow_run",
  "release",
  "deployment",
  "installation",
  "repository",
  "organization",
] as const;

function entityOf(payload: Record<string, unknown>): EntityRef | undefined {
  for (const key of ENTITY_KEYS) {
    const id = idAt(payload[key], "id");
    if (id) return { type: key, id };
  }
  return undefined;
}

export const github: Provider = {
  kind: "github",
  label: "GitHub",
  signatureHeaders: ["x-hub-signature-256"],
  // Each event has a body of its own shape: one body under another X-GitHub-Event is a forgery, not an event.
  unsignedId: "source",
  verify({ rawBody, headers, secrets }) {
    const header = headers.get("x-hub-signature-256");
    if (!header) return badSignature("missing X-Hub-Signature-256 header");
    const sig = header.startsWith("sha256=") ? decodeHex(header.slice(7)) : undefined;
    if (!sig) return badSignature("malformed X-Hub-Signature-256 header (want sha256=<hex>)");
    // GitHub signs no timestamp (nor its delivery id): the claim, on the delivery id and on the body's
    // SHA-256 (webhook_event_body_scope_key_idx), is the only replay defence.
    return anyMatch(secrets, [sig], (secret) => hmacSha256(secret, rawBody))
      ? { ok: true }
      : badSignature("signature mismatch");
  },
  describe(payload, headers) {
    const eventId = headers.get("x-github-delivery");
    if (!eventId) return { ok: false, reason: "missing event id (X-GitHub-Delivery header)" };
    const name = headers.get("x-github-event");
    if (!name) return { ok: false, reason: "missing event type (X-GitHub-Event header)" };
    if (!isObject(payload)) return { ok: false, reason: "payload is not a JSON object" };
    const action = idAt(payload, "action");
    return {
      ok: true,
      event: { eventId, eventType: action ? `${name}.${action}` : name, entity: entityOf(payload) },
    };
  },
  sign({ rawBody, secret, eventId, eventType }) {
    // describe joins X-GitHub-Event and the body's action with "."; the header carries the event alone.
    return {
      "content-type": "application/json",
      "x-hub-signature-256": `sha256=${hmacSha256(secret, rawBody).toString("hex")}`,
      "x-github-delivery": eventId,
      "x-github-event": eventType.split(".")[0] ?? eventType,
    };
  },
};
