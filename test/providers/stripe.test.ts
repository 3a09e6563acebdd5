import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { stripe } from "@/lib/providers/stripe";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { nowSeconds, signStripe, TEST_SECRETS, type Delivery } from "@/test/sign";

const NOW = 1_712_917_200;
const SECRET = TEST_SECRETS.stripe;
const OLD = "whsec_old_rotated_out_0123456789abcdef";
const NEW = "whsec_new_rotated_in_fedcba9876543210";
const STRANGER = "whsec_someone_elses_endpoint_secret00";
const body = JSON.stringify(stripeSubscriptionEvent());
const sdk = new Stripe("sk_test_unused");

function verify(d: Delivery, secrets: string[] = [SECRET], now = NOW) {
  return stripe.verify({
    rawBody: Buffer.from(d.body),
    headers: new Headers(d.headers),
    secrets,
    toleranceSeconds: 300,
    now,
  });
}

function withSignature(header: string): Delivery {
  return { body, headers: { "content-type": "application/json", "stripe-signature": header } };
}

/** The hex v1 that Stripe's signer produces for (body, secret, t). */
function v1Of(secret: string, t: number): string {
  const header = signStripe(body, secret, t).headers["stripe-signature"] ?? "";
  return /v1=([0-9a-f]+)/.exec(header)?.[1] ?? "";
}

function tamperOneByte(text: string): string {
  const i = text.indexOf('"active"') + 1;
  return `${text.slice(0, i)}A${text.slice(i + 1)}`;
}

describe("stripe verify", () => {
  it("[stripe] a delivery signed with Stripe's own signer verifies", () => {
    expect(verify(signStripe(body, SECRET, NOW))).toEqual({ ok: true });
  });

  it("[stripe] a delivery signed now passes both stripe.webhooks.constructEvent and our verifier", () => {
    const now = nowSeconds();
    const d = signStripe(body, SECRET, now);
    const event = sdk.webhooks.constructEvent(d.body, d.headers["stripe-signature"] ?? "", SECRET, 300);
    expect(event.id).toBe("evt_1P4nHlLgUG5tbmjcQvZ6LJ6R");
    expect(event.type).toBe("customer.subscription.updated");
    expect(verify(d, [SECRET], now)).toEqual({ ok: true });
  });

  it("[stripe] a tampered body is refused by constructEvent and by our verifier alike", () => {
    const now = nowSeconds();
    const d = signStripe(body, SECRET, now);
    const tampered = tamperOneByte(d.body);
    expect(() => sdk.webhooks.constructEvent(tampered, d.headers["stripe-signature"] ?? "", SECRET)).toThrow(
      /No signatures found matching the expected signature/,
    );
    expect(verify({ ...d, body: tampered }, [SECRET], now)).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[stripe] the secret is the whole whsec_ string: a signature keyed on its base64 tail is refused", () => {
    expect(verify(signStripe(body, SECRET.slice("whsec_".length), NOW))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[stripe] during rotation a delivery signed with the old or the new secret verifies", () => {
    expect(verify(signStripe(body, OLD, NOW), [OLD, NEW])).toEqual({ ok: true });
    expect(verify(signStripe(body, NEW, NOW), [OLD, NEW])).toEqual({ ok: true });
  });

  it("[stripe] during rotation a delivery signed with a third secret is refused as a signature mismatch", () => {
    expect(verify(signStripe(body, STRANGER, NOW), [OLD, NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[stripe] a header with two v1 signatures verifies when only the second matches", () => {
    const header = `t=${NOW},v1=${v1Of(STRANGER, NOW)},v1=${v1Of(NEW, NOW)}`;
    expect(verify(withSignature(header), [NEW])).toEqual({ ok: true });
  });

  it("[stripe] a header with two v1 signatures is refused when neither matches", () => {
    const header = `t=${NOW},v1=${v1Of(STRANGER, NOW)},v1=${v1Of(OLD, NOW)}`;
    expect(verify(withSignature(header), [NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[stripe] the timestamp is signed: moving t by one second breaks the signature", () => {
    const header = `t=${NOW + 1},v1=${v1Of(SECRET, NOW)}`;
    expect(verify(withSignature(header), [SECRET], NOW)).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[stripe] a signature 301 s old is refused as outside the tolerance", () => {
    expect(verify(signStripe(body, SECRET, NOW - 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[stripe] a signature 301 s in the future is refused as outside the tolerance", () => {
    expect(verify(signStripe(body, SECRET, NOW + 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[stripe] a signature 299 s old or 299 s ahead is inside the tolerance", () => {
    expect(verify(signStripe(body, SECRET, NOW - 299))).toEqual({ ok: true });
    expect(verify(signStripe(body, SECRET, NOW + 299))).toEqual({ ok: true });
  });

  it("[stripe] a body with one byte changed is refused", () => {
    const d = signStripe(body, SECRET, NOW);
    expect(verify({ ...d, body: tamperOneByte(d.body) })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[stripe] a delivery signed with the wrong secret is refused", () => {
    expect(verify(signStripe(body, STRANGER, NOW))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[stripe] a delivery without Stripe-Signature is refused naming the header", () => {
    expect(verify({ body, headers: { "content-type": "application/json" } })).toEqual({
      ok: false,
      reason: "missing Stripe-Signature header",
      refusal: "bad_signature",
    });
  });

  it.each([
    "garbage",
    "t=,v1=",
    `t=${NOW}`,
    "v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
    `t=abc,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd`,
    `t=${NOW},v1=not-hex`,
    `t=${NOW};v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd`,
    "=,=,,,==",
  ])("[stripe] a malformed Stripe-Signature %j is refused without throwing", (header) => {
    expect(verify(withSignature(header))).toEqual({
      ok: false,
      reason: "malformed Stripe-Signature header (want t=…,v1=…)",
      refusal: "bad_signature",
    });
  });
});

describe("stripe describe", () => {
  const headers = new Headers();

  it("[stripe] a subscription event is keyed by event.id and versioned by event.created, not data.object.created", () => {
    const payload = stripeSubscriptionEvent({
      eventId: "evt_1P4nHlLgUG5tbmjcQvZ6LJ6R",
      created: 1712917129,
      objectCreated: 1679588735,
      subscriptionId: "sub_1MoqxHLgUG5tbmjcG8lOfx2N",
    });
    expect(stripe.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: {
        eventId: "evt_1P4nHlLgUG5tbmjcQvZ6LJ6R",
        eventType: "customer.subscription.updated",
        entity: { type: "subscription", id: "sub_1MoqxHLgUG5tbmjcG8lOfx2N", version: 1712917129 },
      },
    });
  });

  it("[stripe] two updates of one subscription get increasing versions although data.object.created is equal", () => {
    const first = stripe.describe(stripeSubscriptionEvent({ eventId: "evt_A1aaaaaa", created: 1712917129 }), headers);
    const second = stripe.describe(stripeSubscriptionEvent({ eventId: "evt_B2bbbbbb", created: 1712917190 }), headers);
    expect(first.ok && first.event.entity?.version).toBe(1712917129);
    expect(second.ok && second.event.entity?.version).toBe(1712917190);
  });

  it("[stripe] an invoice.paid event describes the invoice as its entity", () => {
    const payload = stripeInvoicePaidEvent({ eventId: "evt_1P4nHmLgUG5tbmjcWm0Ip3Xq", created: 1712917130 });
    expect(stripe.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: {
        eventId: "evt_1P4nHmLgUG5tbmjcWm0Ip3Xq",
        eventType: "invoice.paid",
        entity: { type: "invoice", id: "in_1MoqxGLgUG5tbmjcJeILGSau", version: 1712917130 },
      },
    });
  });

  it("[stripe] an event without an id is refused naming payload.id", () => {
    const payload: Record<string, unknown> = { ...stripeSubscriptionEvent() };
    delete payload.id;
    expect(stripe.describe(payload, headers)).toEqual({ ok: false, reason: "missing event id (payload.id)" });
  });

  it("[stripe] an event without a type is refused naming payload.type", () => {
    const payload: Record<string, unknown> = { ...stripeSubscriptionEvent() };
    delete payload.type;
    expect(stripe.describe(payload, headers)).toEqual({ ok: false, reason: "missing event type (payload.type)" });
  });
});
