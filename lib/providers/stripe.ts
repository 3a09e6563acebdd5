import { z } from "zod";
import { anyMatch, hmacSha256, parseTimestampedHeader } from "./crypto";
import { optionsReader } from "./options";
import { versionFromInteger, versionFromIso, versionOf } from "./time";
import { badSignature, checkTolerance, idAt, isObject, type Described, type Provider } from "./types";

/**
 * How a replay token is checked at this source (lib/replay/confirm.ts). Stripe can be asked for an event by
 * id, so a replayed event is fetched with the API key in `replayApiKeyEnv` (the source STRIPE_WEBHOOK_SECRET
 * declares uses STRIPE_API_KEY); without one the token is refused, unless `allowUnconfirmedReplay` lets the
 * source's own token (`stripe:<token>` in REPLAY_TOKEN, never a bare one) post events as they are.
 */
export const StripeOptions = z.strictObject({
  // A STRIPE_…KEY name only: the value is sent to Stripe as a bearer token, so no other secret may be named.
  replayApiKeyEnv: z
    .string()
    .regex(/^STRIPE_[A-Z0-9_]{0,96}KEY$/, "want the name of an environment variable like STRIPE_EU_API_KEY")
    .optional(),
  allowUnconfirmedReplay: z.boolean().optional(),
});
export type StripeOptions = z.infer<typeof StripeOptions>;
const options = optionsReader(StripeOptions);
/** A Stripe source's options, checked (throws a zod error naming the field). */
export const stripeOptions = (raw: unknown): StripeOptions => options.read(raw);

/**
 * A thin event (`object: "v2.core.event"`, event destinations' thin payload): no snapshot, a reference to
 * the object in `related_object`, `created` an ISO time with milliseconds. The type is kept verbatim,
 * brackets and all (`v2.core.account[requirements].updated`).
 */
function describeThin(payload: Record<string, unknown>, eventId: string, eventType: string): Described {
  const related = payload.related_object;
  const type = idAt(related, "type");
  const id = idAt(related, "id");
  const version = versionOf(versionFromIso(payload.created, "event.created"));
  return { ok: true, event: { eventId, eventType, entity: type && id ? { type, id, ...version } : undefined } };
}

// whsec_ and the dashboard's letters and digits (the CLI's are hex; base64url seen in the demo's): never an
// API key (sk_…, rk_…) or an endpoint id (we_…), the usual wrong pastes.
const SIGNING_SECRET = /^whsec_[A-Za-z0-9_-]{8,500}$/;

/** Why a pasted secret cannot be a Stripe endpoint's signing secret, or undefined. */
export function stripeSecretProblem(secret: string): string | undefined {
  return SIGNING_SECRET.test(secret)
    ? undefined
    : "a Stripe signing secret looks like whsec_ followed by at least 8 letters and digits (Developers → Webhooks → " +
        "the endpoint → Signing secret), not an API key (sk_…) or an endpoint id (we_…)";
}

export const stripe: Provider = {
  kind: "stripe",
  label: "Stripe",
  signatureHeaders: ["stripe-signature"],
  parseOptions: (raw) => options.parse(raw),
  verify({ rawBody, headers, secrets, toleranceSeconds, now }) {
    const header = headers.get("stripe-signature");
    if (!header) return badSignature("missing Stripe-Signature header");
    const { timestamp: t, signatures: v1 } = parseTimestampedHeader(header, {
      separator: ",",
      timestampKey: "t",
      signatureKey: "v1",
    });
    if (t === undefined || v1.length === 0) return badSignature("malformed Stripe-Signature header (want t=…,v1=…)");
    // The key is the whole whsec_… string, not its decoded form.
    const ok = anyMatch(secrets, v1, (secret) => hmacSha256(secret, `${t}.`, rawBody));
    if (!ok) return badSignature("signature mismatch");
    return checkTolerance(t, now, toleranceSeconds);
  },
  describe(payload) {
    const eventId = idAt(payload, "id");
    if (!eventId) return { ok: false, reason: "missing event id (payload.id)" };
    const eventType = idAt(payload, "type");
    if (!eventType) return { ok: false, reason: "missing event type (payload.type)" };
    if (!isObject(payload)) return { ok: false, reason: "payload is not a JSON object" };
    if (payload.object === "v2.core.event") return describeThin(payload, eventId, eventType);
    const data = payload.data;
    const object = isObject(data) ? data.object : undefined;
    const objectType = idAt(object, "object");
    const objectId = idAt(object, "id");
    // The entity version is event.created: data.object.created never changes across updates.
    const version = versionOf(versionFromInteger(payload.created, "event.created"));
    return {
      ok: true,
      event: {
        eventId,
        eventType,
        entity: objectType && objectId ? { type: objectType, id: objectId, ...version } : undefined,
      },
    };
  },
  sign({ rawBody, secret, now }) {
    const v1 = hmacSha256(secret, `${now}.`, rawBody).toString("hex");
    return { "content-type": "application/json", "stripe-signature": `t=${now},v1=${v1}` };
  },
};
