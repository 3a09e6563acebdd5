import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generic, type GenericOptionsInput } from "@/lib/providers/generic";
import {
  LEMON_SQUEEZY_OPTIONS,
  lemonSqueezySubscriptionUpdated,
  TYPEFORM_OPTIONS,
  typeformFormResponse,
  ZOOM_OPTIONS,
  zoomMeetingStarted,
} from "@/test/fixtures/generic";

const NOW = 1_712_917_200;
const SECRET = "whk-per-webhook-secret";
const OLD = "whk-old-secret";
const STRANGER = "whk-someone-elses-secret";

const parse = (o: unknown) => generic.parseOptions?.(o);
// lib/samples sits below lib/providers and cannot name the type: the configurations are checked here.
const CONFIGS: readonly GenericOptionsInput[] = [TYPEFORM_OPTIONS, LEMON_SQUEEZY_OPTIONS, ZOOM_OPTIONS];

function verify(options: unknown, body: string, headers: Record<string, string>, secrets = [SECRET], now = NOW) {
  return generic.verify({
    rawBody: Buffer.from(body),
    headers: new Headers(headers),
    secrets,
    toleranceSeconds: 300,
    now,
    options,
  });
}

const describeWith = (options: unknown, body: string, headers: Record<string, string> = {}) =>
  generic.describe(JSON.parse(body), new Headers(headers), { rawText: body, options });

// Each sender's signature computed here the way its docs say, independently of lib/providers/generic.ts.
const typeformSignature = (body: string, secret = SECRET) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("base64")}`;
const lemonSignature = (body: string, secret = SECRET) => createHmac("sha256", secret).update(body).digest("hex");
const zoomSignature = (body: string, ts: number, secret = SECRET) =>
  `v0=${createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;

describe("generic options", () => {
  it("[generic] the Typeform, Lemon Squeezy and Zoom configurations parse", () => {
    for (const config of CONFIGS) expect(() => parse(config)).not.toThrow();
    expect(parse(TYPEFORM_OPTIONS)).toMatchObject({ signatureHeader: "typeform-signature", signedContent: "body" });
    expect(parse(LEMON_SQUEEZY_OPTIONS)).toMatchObject({ eventType: { header: "x-event-name" } });
    expect(parse(ZOOM_OPTIONS)).toMatchObject({
      signedContent: { template: "v0:{timestamp}:{body}", timestampHeader: "x-zm-request-timestamp" },
    });
  });

  it("[generic] no options at all are refused naming the required fields", () => {
    expect(() => parse(undefined)).toThrow(/signatureHeader[\s\S]*algorithm[\s\S]*encoding[\s\S]*eventId/);
  });

  const base: GenericOptionsInput = TYPEFORM_OPTIONS;
  it.each<[string, Record<string, unknown>, RegExp]>([
    ["an unknown option", { ...base, signatureHeaders: "x" }, /signatureHeaders/],
    ["an algorithm outside sha1/sha256/sha512", { ...base, algorithm: "md5" }, /algorithm/],
    ["an encoding outside hex/base64", { ...base, encoding: "base32" }, /encoding/],
    ["a header name with a space", { ...base, signatureHeader: "Typeform Signature" }, /signatureHeader/],
    ["two event id sources", { ...base, eventId: { path: "event_id", header: "X-Id" } }, /eventId[\s\S]*exactly one/],
    ["no event id source", { ...base, eventId: {} }, /eventId/],
    ["an empty hashOf", { ...base, eventId: { hashOf: [] } }, /eventId/],
    ["a bad dot path", { ...base, eventId: { path: "a..b" } }, /eventId/],
    [
      "an entity with neither type nor typePath",
      { ...base, entity: { idPath: "id" } },
      /entity[\s\S]*type or typePath/,
    ],
    [
      "a template without {body}",
      { ...base, signedContent: { template: "v0:{timestamp}", timestampHeader: "x-ts" } },
      /signedContent[\s\S]*\{body\}/,
    ],
    [
      "a template with a misspelt placeholder",
      { ...base, signedContent: { template: "{ts}.{timestamp}.{body}", timestampHeader: "x-ts" } },
      /signedContent[\s\S]*placeholders/,
    ],
    [
      "a template without its timestamp header",
      { ...base, signedContent: { template: "{timestamp}.{body}" } },
      /signedContent/,
    ],
    ["signedContent neither body nor a template", { ...base, signedContent: "raw" }, /signedContent/],
  ])("[generic] %s is refused, naming the field", (_, options, message) => {
    expect(() => parse(options)).toThrow(message);
  });
});

describe("generic: Typeform", () => {
  const options = parse(TYPEFORM_OPTIONS);
  const body = JSON.stringify(typeformFormResponse());

  it("[generic] a Typeform-Signature (sha256=<base64>) computed as Typeform documents verifies", () => {
    expect(verify(options, body, { "typeform-signature": typeformSignature(body) })).toEqual({ ok: true });
  });

  it("[generic] our sign produces exactly Typeform's header", () => {
    const headers = generic.sign?.({ rawBody: body, secret: SECRET, now: NOW, eventId: "", eventType: "", options });
    expect(headers?.["typeform-signature"]).toBe(typeformSignature(body));
  });

  it("[generic] a Typeform delivery is keyed by event_id, typed by event_type and names the response", () => {
    expect(describeWith(options, body)).toStrictEqual({
      ok: true,
      event: {
        eventId: "LtWXD3crgy",
        eventType: "form_response",
        entity: { type: "form_response", id: "a3a12ec67a1365927098a606107fac15", version: 1_516_299_422_000_000 },
      },
    });
  });

  it("[generic] one changed byte is a signature mismatch", () => {
    const tampered = body.replace("laura@example.com", "laurA@example.com");
    expect(verify(options, tampered, { "typeform-signature": typeformSignature(body) })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[generic] during rotation either secret verifies and a third does not", () => {
    const sig = (s: string) => ({ "typeform-signature": typeformSignature(body, s) });
    expect(verify(options, body, sig(OLD), [OLD, SECRET])).toEqual({ ok: true });
    expect(verify(options, body, sig(SECRET), [OLD, SECRET])).toEqual({ ok: true });
    expect(verify(options, body, sig(STRANGER), [OLD, SECRET]).ok).toBe(false);
  });

  it("[generic] a missing header, a missing prefix and a hex digest are refused as bad signatures", () => {
    const hex = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
    expect(verify(options, body, {})).toEqual({
      ok: false,
      reason: "missing typeform-signature header",
      refusal: "bad_signature",
    });
    expect(verify(options, body, { "typeform-signature": typeformSignature(body).slice(7) })).toEqual({
      ok: false,
      reason: "malformed typeform-signature header (want sha256=<base64>)",
      refusal: "bad_signature",
    });
    expect(verify(options, body, { "typeform-signature": hex }).ok).toBe(false);
  });

  it("[generic] a Typeform delivery without event_id cannot be described and names the path", () => {
    const payload: Record<string, unknown> = typeformFormResponse();
    delete payload.event_id;
    expect(describeWith(options, JSON.stringify(payload))).toEqual({
      ok: false,
      reason: "missing event id (payload.event_id)",
    });
  });
});

describe("generic: Lemon Squeezy (no event id: a hash of stable fields)", () => {
  const options = parse(LEMON_SQUEEZY_OPTIONS);
  const body = JSON.stringify(lemonSqueezySubscriptionUpdated());
  const headers = (b: string) => ({ "x-signature": lemonSignature(b), "x-event-name": "subscription_updated" });

  it("[generic] an X-Signature (hex HMAC-SHA256 of the body) computed as Lemon Squeezy documents verifies", () => {
    expect(verify(options, body, headers(body))).toEqual({ ok: true });
  });

  it("[generic] the type is X-Event-Name and the entity is the JSON:API resource, versioned by updated_at", () => {
    const described = describeWith(options, body, headers(body));
    expect(described.ok && described.event.eventType).toBe("subscription_updated");
    expect(described.ok && described.event.entity).toStrictEqual({
      type: "subscriptions",
      id: "1",
      version: 1_628_690_059_000_000,
    });
  });

  it("[generic] the event id is the SHA-256 of the listed fields, not of the body", () => {
    const described = describeWith(options, body, headers(body));
    const expected = createHash("sha256")
      .update(
        JSON.stringify([
          ["meta.event_name", "subscription_updated"],
          ["data.type", "subscriptions"],
          ["data.id", "1"],
          ["data.attributes.updated_at", "2021-08-11T13:54:19.000000Z"],
        ]),
      )
      .digest("hex");
    expect(described.ok && described.event.eventId).toBe(`sha256:${expected}`);
  });

  it("[generic] the same event re-serialised (indented, keys reordered, other fields changed) has the same id", () => {
    const original = lemonSqueezySubscriptionUpdated();
    const reordered = {
      data: { ...original.data, attributes: { ...original.data.attributes, renews_at: "2022-12-12T00:00:00.000000Z" } },
      meta: { ...original.meta, test_mode: false },
    };
    const again = JSON.stringify(reordered, null, 2);
    const a = describeWith(options, body, headers(body));
    const b = describeWith(options, again, headers(again));
    expect(a.ok && b.ok && a.event.eventId === b.event.eventId).toBe(true);
  });

  it("[generic] a later change of the same subscription, or another event about it, has another id", () => {
    const id = (b: string) => {
      const d = describeWith(options, b, headers(b));
      return d.ok ? d.event.eventId : d.reason;
    };
    const later = JSON.stringify(lemonSqueezySubscriptionUpdated({ updatedAt: "2021-08-11T13:54:20.000000Z" }));
    const other = JSON.stringify(lemonSqueezySubscriptionUpdated({ eventName: "subscription_payment_success" }));
    expect(new Set([id(body), id(later), id(other)]).size).toBe(3);
  });

  it("[generic] a body missing a hashed field cannot be described, and the reason names each missing field", () => {
    const payload = lemonSqueezySubscriptionUpdated();
    const partial = { meta: { test_mode: true }, data: { ...payload.data, attributes: { status: "active" } } };
    expect(describeWith(options, JSON.stringify(partial))).toEqual({
      ok: false,
      reason: "missing event id fields (payload.meta.event_name, payload.data.attributes.updated_at)",
    });
  });

  it("[generic] an object or a number past 2^53 in a hashed field is refused: neither is stable", () => {
    const nested = JSON.stringify({
      ...lemonSqueezySubscriptionUpdated(),
      data: { type: "subscriptions", id: { n: 1 } },
    });
    expect(describeWith(options, nested).ok).toBe(false);
    const big = JSON.parse(body).data;
    const bigText = JSON.stringify({ meta: { event_name: "x" }, data: { ...big, id: "__" } }).replace(
      '"__"',
      "820982911946154508",
    );
    expect(describeWith(options, bigText)).toEqual({
      ok: false,
      reason: "event id fields not a string, boolean or exact number (payload.data.id)",
    });
  });

  it("[generic] sign sends X-Signature and X-Event-Name, which verify and describe read back", () => {
    const signed = generic.sign?.({
      rawBody: body,
      secret: SECRET,
      now: NOW,
      eventId: "ignored",
      eventType: "subscription_updated",
      options,
    });
    expect(signed).toEqual({
      "content-type": "application/json",
      "x-signature": lemonSignature(body),
      "x-event-name": "subscription_updated",
    });
  });
});

describe("generic: Zoom (a signed template with a timestamp)", () => {
  const options = parse(ZOOM_OPTIONS);
  const body = JSON.stringify(zoomMeetingStarted());
  const headers = (ts: number, b = body) => ({
    "x-zm-signature": zoomSignature(b, ts),
    "x-zm-request-timestamp": String(ts),
  });

  it("[generic] an x-zm-signature of v0:{timestamp}:{body} computed as Zoom documents verifies", () => {
    expect(verify(options, body, headers(NOW))).toEqual({ ok: true });
  });

  it("[generic] our sign produces Zoom's two headers", () => {
    const signed = generic.sign?.({ rawBody: body, secret: SECRET, now: NOW, eventId: "", eventType: "", options });
    expect(signed).toEqual({ "content-type": "application/json", ...headers(NOW) });
  });

  it("[generic] the timestamp is signed: moving it by a second breaks the signature", () => {
    const moved = { ...headers(NOW), "x-zm-request-timestamp": String(NOW + 1) };
    expect(verify(options, body, moved)).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[generic] a signature 301 s old or ahead is refused as stale; 299 s is accepted", () => {
    const stale = { ok: false, reason: "timestamp outside the 300 s tolerance", refusal: "stale_timestamp" };
    expect(verify(options, body, headers(NOW - 301))).toEqual(stale);
    expect(verify(options, body, headers(NOW + 301))).toEqual(stale);
    expect(verify(options, body, headers(NOW - 299))).toEqual({ ok: true });
  });

  it.each(["", "soon", "1712917200000", "-1"])(
    "[generic] a timestamp header %j is refused as a bad signature, without throwing",
    (ts) => {
      expect(verify(options, body, { ...headers(NOW), "x-zm-request-timestamp": ts })).toEqual({
        ok: false,
        reason: "missing or malformed x-zm-request-timestamp header",
        refusal: "bad_signature",
      });
    },
  );

  it("[generic] a Zoom event is typed by event, named by the meeting uuid, and keyed by a hash of its stable fields", () => {
    const described = describeWith(options, body, headers(NOW));
    expect(described.ok && described.event.eventType).toBe("meeting.started");
    expect(described.ok && described.event.entity).toStrictEqual({ type: "meeting", id: "4444AAAiAAAAAiAiAiiAii==" });
    expect(described.ok && described.event.eventId).toMatch(/^sha256:[0-9a-f]{64}$/);
    // A retry is re-timestamped in its header, never in the id.
    const retried = describeWith(options, body, headers(NOW + 60));
    expect(retried.ok && described.ok && retried.event.eventId).toBe(described.ok && described.event.eventId);
  });
});

describe("generic: other shapes", () => {
  it.each(["sha1", "sha512"] as const)(
    "[generic] %s with base64 signs and verifies, as computed independently",
    (algorithm) => {
      const options = parse({ ...TYPEFORM_OPTIONS, algorithm, prefix: undefined });
      const body = JSON.stringify(typeformFormResponse());
      const sig = createHmac(algorithm, SECRET).update(body).digest("base64");
      expect(verify(options, body, { "typeform-signature": sig })).toEqual({ ok: true });
      expect(
        generic.sign?.({ rawBody: body, secret: SECRET, now: NOW, eventId: "", eventType: "", options })?.[
          "typeform-signature"
        ],
      ).toBe(sig);
    },
  );

  it("[generic] an event id in a header is read from it, and sign sends it there", () => {
    const options = parse({ ...LEMON_SQUEEZY_OPTIONS, eventId: { header: "X-Webhook-Id" } });
    const body = JSON.stringify(lemonSqueezySubscriptionUpdated());
    const signed =
      generic.sign?.({ rawBody: body, secret: SECRET, now: NOW, eventId: "wh_123", eventType: "t", options }) ?? {};
    expect(signed["x-webhook-id"]).toBe("wh_123");
    const described = describeWith(options, body, signed);
    expect(described.ok && described.event.eventId).toBe("wh_123");
    expect(describeWith(options, body, {})).toEqual({ ok: false, reason: "missing event id (x-webhook-id header)" });
  });

  it("[generic] a source reading its event id or type from a header keys on the body too; one reading both from the body does not", () => {
    const unsignedId = generic.unsignedId as (options: unknown) => string | undefined;
    expect(unsignedId(parse(TYPEFORM_OPTIONS))).toBeUndefined();
    expect(unsignedId(parse(ZOOM_OPTIONS))).toBeUndefined();
    expect(unsignedId(parse({ ...TYPEFORM_OPTIONS, eventId: { header: "X-Webhook-Id" } }))).toBe("source");
    // Lemon Squeezy's type is in X-Event-Name: a signed body re-sent under another name is the same event.
    expect(unsignedId(parse(LEMON_SQUEEZY_OPTIONS))).toBe("source");
    expect(unsignedId({ algorithm: "md5" })).toBe("source");
  });

  it("[generic] without eventType the type is unknown; a unix-seconds versionPath is scaled to microseconds", () => {
    const options = parse({
      signatureHeader: "X-Signature",
      algorithm: "sha256",
      encoding: "hex",
      eventId: { path: "id" },
      versionPath: "updated",
      entity: { type: "ticket", idPath: "ticket.id" },
    });
    const described = describeWith(options, '{"id":"ev_1","updated":1712917129,"ticket":{"id":42}}');
    expect(described).toStrictEqual({
      ok: true,
      event: {
        eventId: "ev_1",
        eventType: "unknown",
        entity: { type: "ticket", id: "42", version: 1_712_917_129_000_000 },
      },
    });
  });

  it("[generic] verify with options that are missing or invalid refuses the delivery and says why", () => {
    const body = JSON.stringify(typeformFormResponse());
    const verdict = verify(undefined, body, { "typeform-signature": typeformSignature(body) });
    expect(verdict).toMatchObject({ ok: false, refusal: "bad_signature" });
    expect(verdict.ok || verdict.reason).toMatch(/^source options invalid: .*signatureHeader/);
    expect(describeWith({ ...TYPEFORM_OPTIONS, algorithm: "md5" }, body)).toMatchObject({ ok: false });
  });

  it("[generic] raw (unparsed) options are checked before use and give the same verdicts", () => {
    const body = JSON.stringify(typeformFormResponse());
    expect(verify(TYPEFORM_OPTIONS, body, { "typeform-signature": typeformSignature(body) })).toEqual({ ok: true });
  });
});
