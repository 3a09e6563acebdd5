import { generateKeyPairSync } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { standard } from "@/lib/providers/standard";
import { textAtPath } from "@/lib/providers/options";
import { STANDARD_LIBRARY_TEST_BODY, standardEvent, standardEventTypedUnderEvent } from "@/test/fixtures/standard";
import type { SignInput } from "@/lib/providers/types";

// Svix's published vectors (svix-webhooks server/svix-server/src/worker.rs, README "Configuring the keys"),
// the reference implementation of the spec: same message, one HMAC and one ed25519 signature.
const VECTOR = {
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: STANDARD_LIBRARY_TEST_BODY,
  whsec: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  v1: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  whsk: "whsk_6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbfVKIDij2HKpMKkioLlX0dRqSKJp4AJ6p9lMicMFs6Kvg==",
  whpk: "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=",
  v1a: "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==",
};

const NOW = 1_712_917_200;
const MSG_ID = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
const body = JSON.stringify(standardEvent());

/** A fresh key pair in the spec's serialisation: whsk_ = base64(seed ‖ public key), whpk_ = base64(public key). */
function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d ?? "", "base64url");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  return {
    whsk: `whsk_${Buffer.concat([seed, pub]).toString("base64")}`,
    whpk: `whpk_${pub.toString("base64")}`,
  };
}

function signWith(secret: string, over: Partial<SignInput> = {}) {
  return standard.sign?.({
    rawBody: body,
    secret,
    now: NOW,
    eventId: MSG_ID,
    eventType: "subscription.updated",
    ...over,
  });
}

function verify(rawBody: string, headers: Record<string, string>, secrets: string[], now = NOW) {
  return standard.verify({
    rawBody: Buffer.from(rawBody),
    headers: new Headers(headers),
    secrets,
    toleranceSeconds: 300,
    now,
  });
}

describe("standard webhooks: the published vectors", () => {
  it("[standard] sign with the whsec_ vector secret gives the published v1 signature", () => {
    const headers = standard.sign?.({
      rawBody: VECTOR.body,
      secret: VECTOR.whsec,
      now: VECTOR.timestamp,
      eventId: VECTOR.id,
      eventType: "unknown",
    });
    expect(headers?.["webhook-signature"]).toBe(VECTOR.v1);
  });

  it("[standard] sign with the whsk_ vector key gives the published v1a signature (ed25519 is deterministic)", () => {
    const headers = standard.sign?.({
      rawBody: VECTOR.body,
      secret: VECTOR.whsk,
      now: VECTOR.timestamp,
      eventId: VECTOR.id,
      eventType: "unknown",
    });
    expect(headers?.["webhook-signature"]).toBe(VECTOR.v1a);
  });

  it("[standard] the published v1a signature verifies with the whpk_ public key", () => {
    const headers = {
      "webhook-id": VECTOR.id,
      "webhook-timestamp": String(VECTOR.timestamp),
      "webhook-signature": VECTOR.v1a,
    };
    expect(verify(VECTOR.body, headers, [VECTOR.whpk], VECTOR.timestamp)).toEqual({ ok: true });
  });

  it("[standard] a header with both published signatures verifies with either secret alone", () => {
    const headers = {
      "webhook-id": VECTOR.id,
      "webhook-timestamp": String(VECTOR.timestamp),
      "webhook-signature": `${VECTOR.v1} ${VECTOR.v1a}`,
    };
    expect(verify(VECTOR.body, headers, [VECTOR.whpk], VECTOR.timestamp)).toEqual({ ok: true });
    expect(verify(VECTOR.body, headers, [VECTOR.whsec], VECTOR.timestamp)).toEqual({ ok: true });
  });

  it("[standard] the published v1a signature over another body is a mismatch", () => {
    const headers = {
      "webhook-id": VECTOR.id,
      "webhook-timestamp": String(VECTOR.timestamp),
      "webhook-signature": VECTOR.v1a,
    };
    expect(verify(`{"test": 2432232315}`, headers, [VECTOR.whpk], VECTOR.timestamp)).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] the libraries' own test body (no type, no data) signed by standardwebhooks verifies and is described", () => {
    const signature = new Webhook(VECTOR.whsec).sign(VECTOR.id, new Date(NOW * 1000), VECTOR.body);
    const headers = { "webhook-id": VECTOR.id, "webhook-timestamp": String(NOW), "webhook-signature": signature };
    expect(verify(VECTOR.body, headers, [VECTOR.whsec])).toEqual({ ok: true });
    expect(standard.describe(JSON.parse(VECTOR.body), new Headers(headers))).toStrictEqual({
      ok: true,
      event: { eventId: VECTOR.id, eventType: "unknown", entity: undefined },
    });
  });
});

describe("standard webhooks: v1a (ed25519)", () => {
  it("[standard] a delivery signed with a whsk_ key verifies with its whpk_ public key", () => {
    const { whsk, whpk } = keyPair();
    const headers = signWith(whsk);
    expect(headers?.["webhook-signature"]).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verify(body, headers ?? {}, [whpk])).toEqual({ ok: true });
  });

  it("[standard] a delivery signed with a whsk_ key verifies with that whsk_ key too (it holds the public key)", () => {
    const { whsk } = keyPair();
    expect(verify(body, signWith(whsk) ?? {}, [whsk])).toEqual({ ok: true });
  });

  it("[standard] a v1a signature from another key pair is a mismatch", () => {
    const mine = keyPair();
    const theirs = keyPair();
    expect(verify(body, signWith(theirs.whsk) ?? {}, [mine.whpk])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] a tampered body is refused under v1a", () => {
    const { whsk, whpk } = keyPair();
    const tampered = body.replace('"active"', '"Active"');
    expect(verify(tampered, signWith(whsk) ?? {}, [whpk])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] the id and timestamp are signed under v1a too", () => {
    const { whsk, whpk } = keyPair();
    const headers = signWith(whsk) ?? {};
    expect(verify(body, { ...headers, "webhook-id": "msg_other" }, [whpk]).ok).toBe(false);
    expect(verify(body, { ...headers, "webhook-timestamp": String(NOW + 1) }, [whpk]).ok).toBe(false);
  });

  it("[standard] a v1a signature 301 s old is refused as stale, not as a mismatch", () => {
    const { whsk, whpk } = keyPair();
    expect(verify(body, signWith(whsk, { now: NOW - 301 }) ?? {}, [whpk])).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[standard] HMAC and ed25519 secrets side by side (rotation): each sender's signature verifies", () => {
    const { whsk, whpk } = keyPair();
    const whsec = `whsec_${Buffer.from("rotation-standard-webhooks-key-32").toString("base64")}`;
    expect(verify(body, signWith(whsk) ?? {}, [whsec, whpk])).toEqual({ ok: true });
    expect(verify(body, signWith(whsec) ?? {}, [whsec, whpk])).toEqual({ ok: true });
  });

  it("[standard] several entries: a v1 that fails and a v1a that matches verifies", () => {
    const { whsk, whpk } = keyPair();
    const v1a = signWith(whsk)?.["webhook-signature"] ?? "";
    const headers = { ...signWith(whsk), "webhook-signature": `v1,${Buffer.alloc(32, 1).toString("base64")} ${v1a}` };
    expect(verify(body, headers, [whpk])).toEqual({ ok: true });
  });

  it("[standard] a whpk_ public key cannot sign: sign returns undefined", () => {
    expect(signWith(keyPair().whpk)).toBeUndefined();
  });

  it("[standard] a whsk_ whose second half is not its public key cannot sign, and verifies nothing", () => {
    const a = keyPair();
    const b = keyPair();
    const seed = Buffer.from(a.whsk.slice(5), "base64").subarray(0, 32);
    const otherPub = Buffer.from(b.whpk.slice(5), "base64");
    const corrupt = `whsk_${Buffer.concat([seed, otherPub]).toString("base64")}`;
    expect(signWith(corrupt)).toBeUndefined();
    expect(verify(body, signWith(a.whsk) ?? {}, [corrupt]).ok).toBe(false);
  });

  it("[standard] a whpk_ of the wrong length verifies nothing and does not throw", () => {
    const { whsk } = keyPair();
    expect(verify(body, signWith(whsk) ?? {}, ["whpk_c2hvcnQ="])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[standard] a v1a entry that is not 64 bytes is ignored, like an unknown version", () => {
    const { whpk } = keyPair();
    const headers = { "webhook-id": MSG_ID, "webhook-timestamp": String(NOW), "webhook-signature": "v1a,c2lnbmF0dXJl" };
    expect(verify(body, headers, [whpk]).ok).toBe(false);
  });

  it("[standard] a header of 1,000 entries is read only as far as a real sender's and does not throw", () => {
    const { whsk, whpk } = keyPair();
    const good = signWith(whsk)?.["webhook-signature"] ?? "";
    const junk = Array.from({ length: 1000 }, () => `v1a,${Buffer.alloc(64, 9).toString("base64")}`).join(" ");
    const started = performance.now();
    const verdict = verify(body, { ...signWith(whsk), "webhook-signature": `${junk} ${good}` }, [whpk]);
    expect(verdict.ok).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("standard webhooks: events without type", () => {
  const headers = new Headers({ "webhook-id": MSG_ID });

  it("[standard] a sender with the type under event is typed from options.typePath", () => {
    const options = standard.parseOptions?.({ typePath: "event" });
    const described = standard.describe(standardEventTypedUnderEvent({ id: "inv_8Jd2Kq0Lm4" }), headers, { options });
    expect(described).toStrictEqual({
      ok: true,
      event: { eventId: MSG_ID, eventType: "invoice.paid", entity: { type: "invoice", id: "inv_8Jd2Kq0Lm4" } },
    });
  });

  it("[standard] a nested typePath (meta.type) is followed", () => {
    const options = standard.parseOptions?.({ typePath: "meta.type" });
    const described = standard.describe({ meta: { type: "contact.created" }, data: { id: "c_1" } }, headers, {
      options,
    });
    expect(described.ok && described.event.eventType).toBe("contact.created");
  });

  it("[standard] type wins over typePath when both are present", () => {
    const options = standard.parseOptions?.({ typePath: "event" });
    const described = standard.describe({ type: "a.b", event: "c.d" }, headers, { options });
    expect(described.ok && described.event.eventType).toBe("a.b");
  });

  it("[standard] with typePath configured but absent from the body, the type is unknown", () => {
    const options = standard.parseOptions?.({ typePath: "event" });
    const described = standard.describe({ data: { id: "x_1" } }, headers, { options });
    expect(described.ok && described.event.eventType).toBe("unknown");
  });

  it("[standard] an entity gets a version only when the payload has a timestamp", () => {
    const withTs = standard.describe(standardEvent({ id: "sub_1" }), headers);
    const withoutTs = standard.describe({ type: "subscription.updated", data: { id: "sub_1" } }, headers);
    expect(withTs.ok && withTs.event.entity?.version).toBe(1_712_917_129_344_522);
    expect(withoutTs.ok && withoutTs.event.entity).toStrictEqual({ type: "subscription", id: "sub_1" });
  });

  it("[standard] a typePath through __proto__ is refused, and a path lookup never walks into Object.prototype", () => {
    expect(() => standard.parseOptions?.({ typePath: "__proto__.constructor" })).toThrow(/__proto__/);
    const described = standard.describe(JSON.parse('{"data":{"id":"x"}}'), headers, {
      options: { typePath: "__proto__.constructor" },
    });
    expect(described).toMatchObject({ ok: false, reason: expect.stringMatching(/^source options invalid/) });
    expect(textAtPath(JSON.parse('{"data":{"id":"x"}}'), "__proto__.constructor.name")).toBeUndefined();
    expect(textAtPath(JSON.parse('{"a":{"constructor":{"name":"own"}}}'), "a.constructor.name")).toBeUndefined();
  });
});

describe("standard webhooks: options", () => {
  it("[standard] no options, {} and { typePath } parse", () => {
    expect(standard.parseOptions?.(undefined)).toEqual({});
    expect(standard.parseOptions?.({})).toEqual({});
    expect(standard.parseOptions?.({ typePath: "meta.type" })).toEqual({ typePath: "meta.type" });
  });

  it("[standard] an unknown option is refused with a message naming it", () => {
    expect(() => standard.parseOptions?.({ typePath: "event", typeField: "x" })).toThrow(/typeField/);
  });

  it.each(["", "a..b", "meta type", "a.b.c.d.e.f.g.h.i", "x".repeat(65)])(
    "[standard] typePath %j is refused, naming typePath",
    (typePath) => {
      expect(() => standard.parseOptions?.({ typePath })).toThrow(/typePath/);
    },
  );
});
