import { NodeRuntime, Webhooks } from "@paddle/paddle-node-sdk";
import { beforeAll, describe, expect, it } from "vitest";
import { paddle } from "@/lib/providers/paddle";
import { paddleSubscriptionEvent } from "@/test/fixtures/paddle";
import { nowSeconds, paddleSignature, signPaddle, TEST_SECRETS, type Delivery } from "@/test/sign";

const NOW = 1_712_917_200;
const SECRET = TEST_SECRETS.paddle;
const OLD = "pdl_ntfset_01old_rotated_out";
const NEW = "pdl_ntfset_01new_rotated_in";
const STRANGER = "pdl_ntfset_01someone_else";
const body = JSON.stringify(paddleSubscriptionEvent());

function verify(d: Delivery, secrets: string[] = [SECRET], now = NOW) {
  return paddle.verify({
    rawBody: Buffer.from(d.body),
    headers: new Headers(d.headers),
    secrets,
    toleranceSeconds: 300,
    now,
  });
}

function withSignature(header: string): Delivery {
  return { body, headers: { "content-type": "application/json", "paddle-signature": header } };
}

function h1Of(secret: string, ts: number): string {
  return /h1=([0-9a-f]+)/.exec(paddleSignature(body, secret, ts))?.[1] ?? "";
}

function tamperOneByte(text: string): string {
  const i = text.indexOf('"active"') + 1;
  return `${text.slice(0, i)}A${text.slice(i + 1)}`;
}

describe("paddle verify", () => {
  // The SDK's verifier needs its runtime (crypto provider) set up, as `new Paddle(apiKey)` would do.
  beforeAll(() => NodeRuntime.initialize());

  it("[paddle] a delivery signed with ts:body HMAC verifies", () => {
    expect(verify(signPaddle(body, SECRET, NOW))).toEqual({ ok: true });
  });

  it("[paddle] a delivery signed now passes both the SDK's isSignatureValid and our verifier", async () => {
    const now = nowSeconds();
    const d = signPaddle(body, SECRET, now);
    expect(await new Webhooks().isSignatureValid(d.body, SECRET, d.headers["paddle-signature"] ?? "")).toBe(true);
    expect(verify(d, [SECRET], now)).toEqual({ ok: true });
  });

  it("[paddle] a tampered body is refused by the SDK's isSignatureValid and by our verifier alike", async () => {
    const now = nowSeconds();
    const d = signPaddle(body, SECRET, now);
    const tampered = tamperOneByte(d.body);
    expect(await new Webhooks().isSignatureValid(tampered, SECRET, d.headers["paddle-signature"] ?? "")).toBe(false);
    expect(verify({ ...d, body: tampered }, [SECRET], now)).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[paddle] a delivery signed with another secret is refused by the SDK and by our verifier alike", async () => {
    const now = nowSeconds();
    const d = signPaddle(body, STRANGER, now);
    expect(await new Webhooks().isSignatureValid(d.body, SECRET, d.headers["paddle-signature"] ?? "")).toBe(false);
    expect(verify(d, [SECRET], now)).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[paddle] during rotation a delivery signed with the old or the new secret verifies", () => {
    expect(verify(signPaddle(body, OLD, NOW), [OLD, NEW])).toEqual({ ok: true });
    expect(verify(signPaddle(body, NEW, NOW), [OLD, NEW])).toEqual({ ok: true });
  });

  it("[paddle] during rotation a delivery signed with a third secret is refused as a signature mismatch", () => {
    expect(verify(signPaddle(body, STRANGER, NOW), [OLD, NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[paddle] a header with two h1 signatures verifies when only the second matches", () => {
    const header = `ts=${NOW};h1=${h1Of(STRANGER, NOW)};h1=${h1Of(NEW, NOW)}`;
    expect(verify(withSignature(header), [NEW])).toEqual({ ok: true });
  });

  it("[paddle] a header with two h1 signatures is refused when neither matches", () => {
    const header = `ts=${NOW};h1=${h1Of(STRANGER, NOW)};h1=${h1Of(OLD, NOW)}`;
    expect(verify(withSignature(header), [NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[paddle] the timestamp is signed: moving ts by one second breaks the signature", () => {
    const header = `ts=${NOW + 1};h1=${h1Of(SECRET, NOW)}`;
    expect(verify(withSignature(header))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[paddle] a signature 301 s old is refused as outside the tolerance", () => {
    expect(verify(signPaddle(body, SECRET, NOW - 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[paddle] a signature 301 s in the future is refused as outside the tolerance", () => {
    expect(verify(signPaddle(body, SECRET, NOW + 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[paddle] a signature 299 s old or 299 s ahead is inside the tolerance", () => {
    expect(verify(signPaddle(body, SECRET, NOW - 299))).toEqual({ ok: true });
    expect(verify(signPaddle(body, SECRET, NOW + 299))).toEqual({ ok: true });
  });

  it("[paddle] a body with one byte changed is refused", () => {
    const d = signPaddle(body, SECRET, NOW);
    expect(verify({ ...d, body: tamperOneByte(d.body) })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[paddle] a delivery signed with the wrong secret is refused", () => {
    expect(verify(signPaddle(body, STRANGER, NOW))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[paddle] a delivery without Paddle-Signature is refused naming the header", () => {
    expect(verify({ body, headers: { "content-type": "application/json" } })).toEqual({
      ok: false,
      reason: "missing Paddle-Signature header",
      refusal: "bad_signature",
    });
  });

  it.each([
    "garbage",
    "ts=;h1=",
    `ts=${NOW}`,
    "h1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
    "ts=soon;h1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
    `ts=${NOW};h1=not-hex`,
    `ts=${NOW},h1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd`,
    ";;;==;=",
  ])("[paddle] a malformed Paddle-Signature %j is refused without throwing", (header) => {
    expect(verify(withSignature(header))).toEqual({
      ok: false,
      reason: "malformed Paddle-Signature header (want ts=…;h1=…)",
      refusal: "bad_signature",
    });
  });
});

describe("paddle describe", () => {
  const headers = new Headers();

  it("[paddle] subscription.updated is keyed by event_id and versioned by occurred_at in microseconds", () => {
    const payload = paddleSubscriptionEvent({
      eventId: "evt_01hv8x2a7ypz5r9hx1m9b5b0nq",
      occurredAt: "2024-04-12T10:18:49.621022Z",
      subscriptionId: "sub_01hv8x29kz0t586xy6zn1a62ny",
    });
    expect(paddle.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: {
        eventId: "evt_01hv8x2a7ypz5r9hx1m9b5b0nq",
        eventType: "subscription.updated",
        entity: { type: "subscription", id: "sub_01hv8x29kz0t586xy6zn1a62ny", version: 1_712_917_129_621_022 },
      },
    });
  });

  it("[paddle] two events one microsecond apart get versions one apart", () => {
    const a = paddle.describe(paddleSubscriptionEvent({ occurredAt: "2024-04-12T10:18:49.621022Z" }), headers);
    const b = paddle.describe(paddleSubscriptionEvent({ occurredAt: "2024-04-12T10:18:49.621023Z" }), headers);
    expect(a.ok && a.event.entity?.version).toBe(1_712_917_129_621_022);
    expect(b.ok && b.event.entity?.version).toBe(1_712_917_129_621_023);
  });

  it("[paddle] the entity type is the event type's resource (transaction.completed → transaction)", () => {
    const payload = {
      ...paddleSubscriptionEvent({ eventType: "transaction.completed" }),
      data: { id: "txn_01hv8wptq8987qeep44cyrewp9", status: "completed" },
    };
    const described = paddle.describe(payload, headers);
    expect(described.ok && described.event.entity).toStrictEqual({
      type: "transaction",
      id: "txn_01hv8wptq8987qeep44cyrewp9",
      version: 1_712_917_129_621_022,
    });
  });

  it("[paddle] a notification without event_id is refused naming payload.event_id", () => {
    const payload: Record<string, unknown> = { ...paddleSubscriptionEvent() };
    delete payload.event_id;
    expect(paddle.describe(payload, headers)).toEqual({ ok: false, reason: "missing event id (payload.event_id)" });
  });

  it("[paddle] a notification without event_type is refused naming payload.event_type", () => {
    const payload: Record<string, unknown> = { ...paddleSubscriptionEvent() };
    delete payload.event_type;
    expect(paddle.describe(payload, headers)).toEqual({
      ok: false,
      reason: "missing event type (payload.event_type)",
    });
  });
});
