import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { NodeRuntime, Webhooks } from "@paddle/paddle-node-sdk";
import { isValidSlackRequest } from "@slack/bolt";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import { PROVIDERS, PROVIDER_KINDS, type ProviderKind } from "@/lib/providers";
import { LEMON_SQUEEZY_OPTIONS, lemonSqueezySubscriptionUpdated } from "@/test/fixtures/generic";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { paddleSubscriptionEvent } from "@/test/fixtures/paddle";
import { shopifyOrder } from "@/test/fixtures/shopify";
import { slackEventCallback } from "@/test/fixtures/slack";
import { standardEvent } from "@/test/fixtures/standard";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { nowSeconds, TEST_SECRETS } from "@/test/sign";

const SECRETS: Record<ProviderKind, string> = { ...TEST_SECRETS, generic: "lemon-squeezy-signing-secret" };

/** A real-shaped body per kind, and the id/type a sender puts in headers (where the kind carries them). */
const CASES: Record<ProviderKind, { body: unknown; eventId: string; eventType: string; options?: unknown }> = {
  stripe: {
    body: stripeSubscriptionEvent(),
    eventId: "evt_1P4nHlLgUG5tbmjcQvZ6LJ6R",
    eventType: "customer.subscription.updated",
  },
  github: { body: githubIssuesOpened(), eventId: "72d3162e-cc78-11e3-81ab-4c9367dc0958", eventType: "issues.opened" },
  shopify: { body: shopifyOrder(), eventId: "98880550-7158-44d4-b7cd-2c97c8a091b5", eventType: "orders/updated" },
  paddle: {
    body: paddleSubscriptionEvent(),
    eventId: "evt_01hv8x2a7ypz5r9hx1m9b5b0nq",
    eventType: "subscription.updated",
  },
  slack: { body: slackEventCallback(), eventId: "Ev06U1RT7XQ9", eventType: "message" },
  standard: { body: standardEvent(), eventId: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", eventType: "subscription.updated" },
  generic: {
    body: lemonSqueezySubscriptionUpdated(),
    eventId: "(hashed from the body)",
    eventType: "subscription_updated",
    options: PROVIDERS.generic.parseOptions?.(LEMON_SQUEEZY_OPTIONS),
  },
};

function signed(kind: ProviderKind, now = nowSeconds()) {
  const c = CASES[kind];
  const rawBody = JSON.stringify(c.body);
  const headers = PROVIDERS[kind].sign?.({
    rawBody,
    secret: SECRETS[kind],
    now,
    eventId: c.eventId,
    eventType: c.eventType,
    options: c.options,
  });
  if (!headers) throw new Error(`${kind} did not sign`);
  return { rawBody, headers, now };
}

describe("every provider kind", () => {
  it.each(PROVIDER_KINDS)("[providers] %s has its kind, a label, signature headers and a signer", (kind) => {
    const provider = PROVIDERS[kind];
    expect(provider.kind).toBe(kind);
    expect(provider.label.length).toBeGreaterThan(0);
    expect(provider.sign).toBeTypeOf("function");
    if (kind !== "generic") expect(provider.signatureHeaders.length).toBeGreaterThan(0);
    for (const h of provider.signatureHeaders) expect(h).toBe(h.toLowerCase());
  });

  it("[providers] GitHub and Shopify send an unsigned id (Shopify's body is a key per topic), generic sources may", () => {
    expect(
      Object.fromEntries(
        PROVIDER_KINDS.flatMap((k) => (PROVIDERS[k].unsignedId ? [[k, PROVIDERS[k].unsignedId]] : [])),
      ),
    ).toEqual({
      github: "source",
      shopify: "type",
      generic: expect.any(Function),
    });
  });

  it("[providers] the labels are what the console shows", () => {
    expect(Object.fromEntries(PROVIDER_KINDS.map((k) => [k, PROVIDERS[k].label]))).toEqual({
      stripe: "Stripe",
      github: "GitHub",
      shopify: "Shopify",
      paddle: "Paddle",
      slack: "Slack",
      standard: "Standard Webhooks",
      generic: "Generic HMAC",
    });
  });

  it.each(PROVIDER_KINDS)(
    "[providers] %s: verify accepts what sign produced, and the signature header is one it names",
    (kind) => {
      const { rawBody, headers, now } = signed(kind);
      const verdict = PROVIDERS[kind].verify({
        rawBody: Buffer.from(rawBody),
        headers: new Headers(headers),
        secrets: [SECRETS[kind]],
        toleranceSeconds: 300,
        now,
        options: CASES[kind].options,
      });
      expect(verdict).toEqual({ ok: true });
      expect(headers["content-type"]).toBe("application/json");
      for (const h of PROVIDERS[kind].signatureHeaders.slice(0, 1)) expect(headers[h]).toBeTruthy();
    },
  );

  it.each(PROVIDER_KINDS)("[providers] %s: what sign produced is refused under another secret", (kind) => {
    const { rawBody, headers, now } = signed(kind);
    const other =
      kind === "standard" ? `whsec_${Buffer.from("another-standard-webhooks-key-32b").toString("base64")}` : "x";
    const verdict = PROVIDERS[kind].verify({
      rawBody: Buffer.from(rawBody),
      headers: new Headers(headers),
      secrets: [other],
      toleranceSeconds: 300,
      now,
      options: CASES[kind].options,
    });
    expect(verdict).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it.each(PROVIDER_KINDS)("[providers] %s: describe reads back the id and type sign put in headers", (kind) => {
    const { rawBody, headers } = signed(kind);
    const described = PROVIDERS[kind].describe(JSON.parse(rawBody), new Headers(headers), {
      rawText: rawBody,
      options: CASES[kind].options,
    });
    expect(described.ok).toBe(true);
    if (!described.ok) return;
    // Shopify's event id is scoped by its topic (lib/providers/shopify.ts).
    const expected = kind === "shopify" ? `${CASES[kind].eventId}:${CASES[kind].eventType}` : CASES[kind].eventId;
    if (kind !== "generic") expect(described.event.eventId).toBe(expected);
    expect(described.event.eventType).toBe(CASES[kind].eventType);
  });
});

describe("sign agrees with each provider's SDK", () => {
  beforeAll(() => NodeRuntime.initialize());

  it("[providers] Stripe: stripe.webhooks.constructEvent accepts our Stripe-Signature", () => {
    const { rawBody, headers } = signed("stripe");
    const event = new Stripe("sk_test_unused").webhooks.constructEvent(
      rawBody,
      headers["stripe-signature"] ?? "",
      SECRETS.stripe,
      300,
    );
    expect(event.id).toBe("evt_1P4nHlLgUG5tbmjcQvZ6LJ6R");
  });

  it("[providers] GitHub: @octokit/webhooks-methods verify accepts our X-Hub-Signature-256, sent with delivery and event headers", async () => {
    const { rawBody, headers } = signed("github");
    expect(await octokitVerify(SECRETS.github, rawBody, headers["x-hub-signature-256"] ?? "")).toBe(true);
    expect(headers["x-github-delivery"]).toBe("72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(headers["x-github-event"]).toBe("issues");
  });

  it("[providers] Paddle: the SDK's isSignatureValid accepts our Paddle-Signature", async () => {
    const { rawBody, headers } = signed("paddle");
    expect(await new Webhooks().isSignatureValid(rawBody, SECRETS.paddle, headers["paddle-signature"] ?? "")).toBe(
      true,
    );
  });

  it("[providers] Slack: Bolt's isValidSlackRequest accepts our X-Slack-Signature", () => {
    const { rawBody, headers } = signed("slack");
    const ok = isValidSlackRequest({
      signingSecret: SECRETS.slack,
      body: rawBody,
      headers: {
        "x-slack-signature": headers["x-slack-signature"] ?? "",
        "x-slack-request-timestamp": Number(headers["x-slack-request-timestamp"]),
      },
    });
    expect(ok).toBe(true);
  });

  it("[providers] Standard Webhooks: the standardwebhooks library verifies our webhook-signature", () => {
    const { rawBody, headers } = signed("standard");
    expect(new Webhook(SECRETS.standard).verify(rawBody, headers)).toEqual(standardEvent());
  });

  it("[providers] Shopify (no SDK installed): the topic, event id, webhook id and trigger time are sent as Shopify does", () => {
    const { headers, now } = signed("shopify");
    expect(headers["x-shopify-topic"]).toBe("orders/updated");
    expect(headers["x-shopify-event-id"]).toBe("98880550-7158-44d4-b7cd-2c97c8a091b5");
    expect(headers["x-shopify-webhook-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers["x-shopify-triggered-at"]).toBe(new Date(now * 1000).toISOString());
  });
});
