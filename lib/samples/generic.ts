/**
 * Real senders configured as "generic" sources (lib/providers/generic.ts), with bodies in the shape their
 * docs show. The README and the tests read these constants, so the documented configuration is the tested
 * one (test/providers/generic.test.ts also checks they are GenericOptionsInput).
 */

/** Typeform: `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>`; event_id and event_type in the body. */
export const TYPEFORM_OPTIONS = {
  signatureHeader: "Typeform-Signature",
  algorithm: "sha256",
  encoding: "base64",
  prefix: "sha256=",
  eventId: { path: "event_id" },
  eventType: { path: "event_type" },
  versionPath: "form_response.submitted_at",
  entity: { type: "form_response", idPath: "form_response.token" },
} as const;

/**
 * Lemon Squeezy: `X-Signature: <hex HMAC-SHA256 of the body>` and `X-Event-Name`. The body (a JSON:API
 * resource) has no event id: the id hashes the event name and the object's type, id and updated_at, which a
 * retry repeats and a new change does not.
 */
export const LEMON_SQUEEZY_OPTIONS = {
  signatureHeader: "X-Signature",
  algorithm: "sha256",
  encoding: "hex",
  eventId: { hashOf: ["meta.event_name", "data.type", "data.id", "data.attributes.updated_at"] },
  eventType: { header: "X-Event-Name" },
  versionPath: "data.attributes.updated_at",
  entity: { typePath: "data.type", idPath: "data.id" },
} as const;

/**
 * Zoom: `x-zm-signature: v0=<hex>` of `v0:{x-zm-request-timestamp}:{body}`, so the tolerance applies. No
 * event id either: event, event_ts (milliseconds) and the object's uuid. Zoom's endpoint.url_validation
 * handshake is not answered by a generic source.
 */
export const ZOOM_OPTIONS = {
  signatureHeader: "x-zm-signature",
  algorithm: "sha256",
  encoding: "hex",
  prefix: "v0=",
  signedContent: { template: "v0:{timestamp}:{body}", timestampHeader: "x-zm-request-timestamp" },
  eventId: { hashOf: ["event", "event_ts", "payload.object.uuid"] },
  eventType: { path: "event" },
  entity: { type: "meeting", idPath: "payload.object.uuid" },
} as const;

/** Typeform's form_response webhook (developers/webhooks/example-payload), answers trimmed. */
export function typeformFormResponse(input: { eventId?: string; token?: string; submittedAt?: string } = {}) {
  return {
    event_id: input.eventId ?? "LtWXD3crgy",
    event_type: "form_response",
    form_response: {
      form_id: "lT4Z3j",
      token: input.token ?? "a3a12ec67a1365927098a606107fac15",
      submitted_at: input.submittedAt ?? "2018-01-18T18:17:02Z",
      landed_at: "2018-01-18T18:07:02Z",
      calculated: { score: 9 },
      hidden: { user_id: "abc123456" },
      definition: {
        id: "lT4Z3j",
        title: "Webhooks example",
        fields: [{ id: "DlXFaesGBpoF", title: "What is your email?", type: "email", ref: "email_ref", properties: {} }],
      },
      answers: [
        { type: "email", email: "laura@example.com", field: { id: "DlXFaesGBpoF", type: "email", ref: "email_ref" } },
      ],
    },
  };
}

/** Lemon Squeezy's subscription_updated: `meta` and a JSON:API `subscriptions` resource. */
export function lemonSqueezySubscriptionUpdated(
  input: { id?: string; status?: string; updatedAt?: string; eventName?: string } = {},
) {
  const id = input.id ?? "1";
  return {
    meta: { test_mode: true, event_name: input.eventName ?? "subscription_updated", custom_data: { customer_id: 25 } },
    data: {
      type: "subscriptions",
      id,
      attributes: {
        store_id: 1,
        customer_id: 1,
        order_id: 1,
        order_item_id: 1,
        product_id: 1,
        variant_id: 1,
        product_name: "Example Product",
        variant_name: "Example Variant",
        user_name: "Darlene Daugherty",
        user_email: "gernser@yahoo.com",
        status: input.status ?? "active",
        status_formatted: "Active",
        card_brand: "visa",
        card_last_four: "4242",
        pause: null,
        cancelled: false,
        trial_ends_at: null,
        billing_anchor: 12,
        renews_at: "2022-11-12T00:00:00.000000Z",
        ends_at: null,
        created_at: "2021-08-11T13:47:27.000000Z",
        updated_at: input.updatedAt ?? "2021-08-11T13:54:19.000000Z",
        test_mode: false,
      },
      links: { self: `https://api.lemonsqueezy.com/v1/subscriptions/${id}` },
    },
  };
}

/** Zoom's meeting.started (the zoom/webhook-sample shape); event_ts is in milliseconds. */
export function zoomMeetingStarted(input: { uuid?: string; eventTs?: number } = {}) {
  return {
    event: "meeting.started",
    payload: {
      account_id: "D8cJuqWVQ623CI4Q8yQK0Q",
      object: {
        duration: 0,
        start_time: "2021-11-02T20:43:19Z",
        timezone: "America/Denver",
        topic: "Weekly support sync",
        id: 85796498173,
        type: 4,
        uuid: input.uuid ?? "4444AAAiAAAAAiAiAiiAii==",
        host_id: "x1yCzABCDEfg23HiJKl4mN",
      },
    },
    event_ts: input.eventTs ?? 1635885799302,
  };
}
