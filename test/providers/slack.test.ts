import { isValidSlackRequest, verifySlackRequest } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { slack } from "@/lib/providers/slack";
import { slackAppRateLimited, slackEventCallback, slackUrlVerification } from "@/test/fixtures/slack";
import { nowSeconds, signSlack, TEST_SECRETS, type Delivery } from "@/test/sign";

const NOW = 1_712_917_200;
const SECRET = TEST_SECRETS.slack;
const OLD = "slack-old-signing-secret";
const NEW = "slack-new-signing-secret";
const STRANGER = "slack-someone-elses-secret";
const body = JSON.stringify(slackEventCallback());

function verify(d: Delivery, secrets: string[] = [SECRET], now = NOW) {
  return slack.verify({
    rawBody: Buffer.from(d.body),
    headers: new Headers(d.headers),
    secrets,
    toleranceSeconds: 300,
    now,
  });
}

function boltOptions(d: Delivery, signingSecret = SECRET) {
  return {
    signingSecret,
    body: d.body,
    headers: {
      "x-slack-signature": d.headers["x-slack-signature"] ?? "",
      "x-slack-request-timestamp": Number(d.headers["x-slack-request-timestamp"]),
    },
  };
}

function withHeaders(signature: string | null, timestamp: string | null = String(NOW)): Delivery {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== null) headers["x-slack-signature"] = signature;
  if (timestamp !== null) headers["x-slack-request-timestamp"] = timestamp;
  return { body, headers };
}

function tamperOneByte(text: string): string {
  const i = text.indexOf('"message"') + 1;
  return `${text.slice(0, i)}M${text.slice(i + 1)}`;
}

describe("slack verify", () => {
  it("[slack] a delivery signed with v0:ts:body HMAC verifies", () => {
    expect(verify(signSlack(body, SECRET, NOW))).toEqual({ ok: true });
  });

  it("[slack] a delivery signed now passes Bolt's verifySlackRequest, isValidSlackRequest and our verifier", () => {
    const now = nowSeconds();
    const d = signSlack(body, SECRET, now);
    expect(() => verifySlackRequest(boltOptions(d))).not.toThrow();
    expect(isValidSlackRequest(boltOptions(d))).toBe(true);
    expect(verify(d, [SECRET], now)).toEqual({ ok: true });
  });

  it("[slack] a tampered body is refused by Bolt and by our verifier alike", () => {
    const now = nowSeconds();
    const d = signSlack(body, SECRET, now);
    const tampered = { ...d, body: tamperOneByte(d.body) };
    expect(() => verifySlackRequest(boltOptions(tampered))).toThrow(/signature mismatch/);
    expect(isValidSlackRequest(boltOptions(tampered))).toBe(false);
    expect(verify(tampered, [SECRET], now)).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[slack] a stale delivery is refused by Bolt and by our verifier alike", () => {
    const now = nowSeconds();
    const d = signSlack(body, SECRET, now - 301);
    expect(() => verifySlackRequest(boltOptions(d))).toThrow(/stale/);
    expect(verify(d, [SECRET], now)).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[slack] during rotation a delivery signed with the old or the new secret verifies", () => {
    expect(verify(signSlack(body, OLD, NOW), [OLD, NEW])).toEqual({ ok: true });
    expect(verify(signSlack(body, NEW, NOW), [OLD, NEW])).toEqual({ ok: true });
  });

  it("[slack] during rotation a delivery signed with a third secret is refused as a signature mismatch", () => {
    expect(verify(signSlack(body, STRANGER, NOW), [OLD, NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[slack] the timestamp is signed: moving X-Slack-Request-Timestamp by one second breaks the signature", () => {
    const d = signSlack(body, SECRET, NOW);
    const moved = { ...d, headers: { ...d.headers, "x-slack-request-timestamp": String(NOW + 1) } };
    expect(verify(moved)).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[slack] a signature 301 s old is refused as outside the tolerance", () => {
    expect(verify(signSlack(body, SECRET, NOW - 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[slack] a signature 301 s in the future is refused as outside the tolerance", () => {
    expect(verify(signSlack(body, SECRET, NOW + 301))).toEqual({
      ok: false,
      reason: "timestamp outside the 300 s tolerance",
      refusal: "stale_timestamp",
    });
  });

  it("[slack] a signature 299 s old or 299 s ahead is inside the tolerance", () => {
    expect(verify(signSlack(body, SECRET, NOW - 299))).toEqual({ ok: true });
    expect(verify(signSlack(body, SECRET, NOW + 299))).toEqual({ ok: true });
  });

  it("[slack] a body with one byte changed is refused", () => {
    const d = signSlack(body, SECRET, NOW);
    expect(verify({ ...d, body: tamperOneByte(d.body) })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[slack] a delivery signed with the wrong secret is refused", () => {
    expect(verify(signSlack(body, STRANGER, NOW))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[slack] a delivery without X-Slack-Signature is refused naming the header", () => {
    expect(verify(withHeaders(null))).toEqual({
      ok: false,
      reason: "missing X-Slack-Signature header",
      refusal: "bad_signature",
    });
  });

  it("[slack] a delivery without X-Slack-Request-Timestamp is refused naming the header", () => {
    const signature = signSlack(body, SECRET, NOW).headers["x-slack-signature"] ?? "";
    expect(verify(withHeaders(signature, null))).toEqual({
      ok: false,
      reason: "missing or malformed X-Slack-Request-Timestamp header",
      refusal: "bad_signature",
    });
  });

  it.each(["yesterday", "1712917200.5", "-1712917200", "1e9"])(
    "[slack] a malformed X-Slack-Request-Timestamp %j is refused without throwing",
    (timestamp) => {
      const signature = signSlack(body, SECRET, NOW).headers["x-slack-signature"] ?? "";
      expect(verify(withHeaders(signature, timestamp))).toEqual({
        ok: false,
        reason: "missing or malformed X-Slack-Request-Timestamp header",
        refusal: "bad_signature",
      });
    },
  );

  it.each(["garbage", "v0=", "v0=zz", "v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd", "v0:abc"])(
    "[slack] a malformed X-Slack-Signature %j is refused without throwing",
    (signature) => {
      expect(verify(withHeaders(signature))).toEqual({
        ok: false,
        reason: "malformed X-Slack-Signature header (want v0=<hex>)",
        refusal: "bad_signature",
      });
    },
  );
});

describe("slack describe and handshake", () => {
  const headers = new Headers();

  it("[slack] an event_callback is keyed by event_id, typed by the inner event and versioned by event_time", () => {
    const payload = slackEventCallback({ eventId: "Ev06U1RT7XQ9", eventTime: 1712917129, channel: "C2147483705" });
    expect(slack.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: {
        eventId: "Ev06U1RT7XQ9",
        eventType: "message",
        entity: { type: "channel", id: "C2147483705", version: 1712917129 },
      },
    });
  });

  it("[slack] a reaction_added event finds its channel under event.item", () => {
    const payload = slackEventCallback({
      event: {
        type: "reaction_added",
        user: "U061F7AUR",
        reaction: "white_check_mark",
        item: { type: "message", channel: "C0G9QF9GZ", ts: "1712917100.000100" },
        item_user: "U0G9QF9C6",
        event_ts: "1712917129.000300",
      },
    });
    const described = slack.describe(payload, headers);
    expect(described.ok && described.event.eventType).toBe("reaction_added");
    expect(described.ok && described.event.entity).toStrictEqual({
      type: "channel",
      id: "C0G9QF9GZ",
      version: 1712917129,
    });
  });

  it("[slack] url_verification is a handshake answered with its challenge", () => {
    const payload = slackUrlVerification({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    expect(slack.handshake?.(payload)).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
  });

  it("[slack] an event_callback is not a handshake", () => {
    expect(slack.handshake?.(slackEventCallback())).toBeUndefined();
  });

  it("[slack] app_rate_limited has no event_id and gets a fallback id from team_id and minute_rate_limited", () => {
    const payload = slackAppRateLimited({ teamId: "T061EG9R6", minute: 1712917080 });
    expect(slack.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: { eventId: "app_rate_limited:T061EG9R6:1712917080", eventType: "app_rate_limited" },
    });
  });

  it("[slack] the app_rate_limited fallback id is stable across redeliveries and differs per minute", () => {
    const first = slack.describe(slackAppRateLimited({ minute: 1712917080 }), headers);
    const again = slack.describe({ ...slackAppRateLimited({ minute: 1712917080 }), token: "rotated-token" }, headers);
    const nextMinute = slack.describe(slackAppRateLimited({ minute: 1712917140 }), headers);
    expect(first.ok && first.event.eventId).toBe("app_rate_limited:T061EG9R6:1712917080");
    expect(again.ok && again.event.eventId).toBe("app_rate_limited:T061EG9R6:1712917080");
    expect(nextMinute.ok && nextMinute.event.eventId).toBe("app_rate_limited:T061EG9R6:1712917140");
  });

  it("[slack] an event_callback without event_id is refused naming payload.event_id", () => {
    const payload: Record<string, unknown> = { ...slackEventCallback() };
    delete payload.event_id;
    expect(slack.describe(payload, headers)).toEqual({ ok: false, reason: "missing event id (payload.event_id)" });
  });
});
