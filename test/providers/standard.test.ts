import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { standard } from "@/lib/providers/standard";
import { standardEvent } from "@/test/fixtures/standard";
import { nowSeconds, signStandard, TEST_SECRETS, type Delivery } from "@/test/sign";

const NOW = 1_712_917_200;
const SECRET = TEST_SECRETS.standard;
const secretOf = (seed: string) => `whsec_${Buffer.from(`${seed}-standard-webhooks-key-32b`).toString("base64")}`;
const OLD = secretOf("old");
const NEW = secretOf("new");
const STRANGER = secretOf("stranger");
const MSG_ID = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
const body = JSON.stringify(standardEvent());

function sign(secret: string, timestamp = NOW) {
  return signStandard(body, secret, { id: MSG_ID, timestamp });
}

function verify(d: Delivery, secrets: string[] = [SECRET], now = NOW) {
  return standard.verify({
    rawBody: Buffer.from(d.body),
    headers: new Headers(d.headers),
    secrets,
    toleranceSeconds: 300,
    now,
  });
}

function withSignature(header: string, timestamp = NOW): Delivery {
  return {
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": MSG_ID,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": header,
    },
  };
}

function without(d: Delivery, header: string): Delivery {
  const headers = { ...d.headers };
  delete headers[header];
  return { ...d, headers };
}

function tamperOneByte(text: string): string {
  const i = text.indexOf('"active"') + 1;
  return `${text.slice(0, i)}A${text.slice(i + 1)}`;
}

describe("standard verify", () => {
  it("[standard] a delivery signed with the standardwebhooks signer verifies", () => {
    expect(verify(sign(SECRET))).toEqual({ ok: true });
  });

  it("[standard] a delivery signed now passes Webhook.verify and our verifier", () => {
    const now = nowSeconds();
    const d = signStandard(body, SECRET, { id: MSG_ID, timestamp: now });
    expect(new Webhook(SECRET).verify(d.body, d.headers)).toEqual(standardEvent());
    expect(verify(d, [SECRET], now)).toEqual({ ok: true });
  });

  it("[standard] a tampered body is refused by Webhook.verify and by our verifier alike", () => {
    const now = nowSeconds();
    const d = signStandard(body, SECRET, { id: MSG_ID, timestamp: now });
    const tampered = tamperOneByte(d.body);
    expect(() => new Webhook(SECRET).verify(tampered, d.headers)).toThrow(/No matching signature found/);
    expect(verify({ ...d, body: tampered }, [SECRET], now)).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] the message id is signed: changing webhook-id breaks the signature", () => {
    const d = sign(SECRET);
    const moved = { ...d, headers: { ...d.headers, "webhook-id": "msg_someone_else" } };
    expect(verify(moved)).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[standard] the timestamp is signed: moving webhook-timestamp by one second breaks the signature", () => {
    const d = sign(SECRET);
    const moved = { ...d, headers: { ...d.headers, "webhook-timestamp": String(NOW + 1) } };
    expect(verify(moved)).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[standard] the key is the base64 after whsec_: a signature keyed on the literal string is refused", () => {
    const literal = Buffer.from(SECRET).toString("base64");
    expect(verify(signStandard(body, literal, { id: MSG_ID, timestamp: NOW }))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] during rotation a delivery signed with the old or the new secret verifies", () => {
    expect(verify(sign(OLD), [OLD, NEW])).toEqual({ ok: true });
    expect(verify(sign(NEW), [OLD, NEW])).toEqual({ ok: true });
  });

  it("[standard] during rotation a delivery signed with a third secret is refused as a signature mismatch", () => {
    expect(verify(sign(STRANGER), [OLD, NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] a webhook-signature with two v1 entries verifies when only the second matches", () => {
    const header = `${sign(STRANGER).headers["webhook-signature"]} ${sign(NEW).headers["webhook-signature"]}`;
    expect(verify(withSignature(header), [NEW])).toEqual({ ok: true });
  });

  it("[standard] a webhook-signature with two v1 entries is refused when neither matches", () => {
    const header = `${sign(STRANGER).headers["webhook-signature"]} ${sign(OLD).headers["webhook-signature"]}`;
    expect(verify(withSignature(header), [NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] a v1a (asymmetric) entry is skipped and the v1 entry after it is checked", () => {
    const header = `v1a,${Buffer.alloc(64, 7).toString("base64")} ${sign(NEW).headers["webhook-signature"]}`;
    expect(verify(withSignature(header), [NEW])).toEqual({ ok: true });
  });

  it("[standard] a signature 301 s old is refused as outside the tolerance", () => {
    expect(verify(sign(SECRET, NOW - 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[standard] a signature 301 s in the future is refused as outside the tolerance", () => {
    expect(verify(sign(SECRET, NOW + 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[standard] a signature 299 s old or 299 s ahead is inside the tolerance", () => {
    expect(verify(sign(SECRET, NOW - 299))).toEqual({ ok: true });
    expect(verify(sign(SECRET, NOW + 299))).toEqual({ ok: true });
  });

  it("[standard] a body with one byte changed is refused", () => {
    const d = sign(SECRET);
    expect(verify({ ...d, body: tamperOneByte(d.body) })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] a delivery signed with the wrong secret is refused", () => {
    expect(verify(sign(STRANGER))).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[standard] a delivery without webhook-signature is refused naming the header", () => {
    expect(verify(without(sign(SECRET), "webhook-signature"))).toEqual({
      ok: false,
      reason: "missing webhook-signature header",
      refusal: "bad_signature",
    });
  });

  it("[standard] a delivery without webhook-id is refused naming the header", () => {
    expect(verify(without(sign(SECRET), "webhook-id"))).toEqual({
      ok: false,
      reason: "missing webhook-id header",
      refusal: "bad_signature",
    });
  });

  it("[standard] a delivery without webhook-timestamp is refused naming the header", () => {
    expect(verify(without(sign(SECRET), "webhook-timestamp"))).toEqual({
      ok: false,
      reason: "missing or malformed webhook-timestamp header",
      refusal: "bad_signature",
    });
  });

  it.each(["garbage", "v1,", "v1,!!!", "v2,c2lnbmF0dXJl", "v1=c2lnbmF0dXJl", ",,, ,", "v1a,c2lnbmF0dXJl", "v1a,"])(
    "[standard] a malformed webhook-signature %j is refused without throwing",
    (header) => {
      expect(verify(withSignature(header))).toEqual({
        ok: false,
        reason: "malformed webhook-signature header (want v1,<base64> or v1a,<base64>)",
        refusal: "bad_signature",
      });
    },
  );
});

describe("standard describe", () => {
  const headers = new Headers({ "webhook-id": MSG_ID });

  it("[standard] an event is keyed by webhook-id and versioned by the payload timestamp in microseconds", () => {
    const payload = standardEvent({ id: "sub_2f9Ck7QmZx4R8tLwY1vB", timestamp: "2024-04-12T10:18:49.344522Z" });
    expect(standard.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: {
        eventId: MSG_ID,
        eventType: "subscription.updated",
        entity: { type: "subscription", id: "sub_2f9Ck7QmZx4R8tLwY1vB", version: 1_712_917_129_344_522 },
      },
    });
  });

  it("[standard] the entity type is the event type's resource (invoice.paid → invoice)", () => {
    const payload = standardEvent({ type: "invoice.paid", id: "inv_8Jd2Kq0Lm4" });
    const described = standard.describe(payload, headers);
    expect(described.ok && described.event.entity).toStrictEqual({
      type: "invoice",
      id: "inv_8Jd2Kq0Lm4",
      version: 1_712_917_129_344_522,
    });
  });

  it("[standard] a delivery without webhook-id cannot be described and says which header is missing", () => {
    expect(standard.describe(standardEvent(), new Headers())).toEqual({
      ok: false,
      reason: "missing event id (webhook-id header)",
    });
  });

  it("[standard] a payload without type is accepted as type unknown, with no entity", () => {
    const payload: Record<string, unknown> = { ...standardEvent() };
    delete payload.type;
    expect(standard.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: { eventId: MSG_ID, eventType: "unknown", entity: undefined },
    });
  });
});
