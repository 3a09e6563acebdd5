/**
 * Signed test deliveries, made with each provider's own SDK signer where one exists
 * (Stripe, GitHub, Standard Webhooks); Shopify, Paddle and Slack are signed here with node:crypto
 * and cross-checked against the SDK verifiers in test/providers/.
 */
import { createHmac, randomUUID } from "node:crypto";
import { sign as githubSign } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import type { LegacyKind } from "@/lib/sources/declared";

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

const stripeClient = new Stripe("sk_test_unused");

export function signStripe(body: string, secret: string, timestamp = nowSeconds()): Delivery {
  const signature = stripeClient.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
  return { body, headers: { "content-type": "application/json", "stripe-signature": signature } };
}

export async function signGithub(
  body: string,
  secret: string,
  opts: { delivery?: string; event?: string } = {},
): Promise<Delivery> {
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-hub-signature-256": await githubSign(secret, body),
      "x-github-delivery": opts.delivery ?? randomUUID(),
      "x-github-event": opts.event ?? "issues",
    },
  };
}

export function signShopify(
  body: string,
  secret: string,
  opts: { webhookId?: string; topic?: string; eventId?: string } = {},
): Delivery {
  // A retry repeats both ids; unless a test sets them apart, the event id is the webhook id.
  const webhookId = opts.webhookId ?? randomUUID();
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-shopify-hmac-sha256": createHmac("sha256", secret).update(body).digest("base64"),
      "x-shopify-webhook-id": webhookId,
      "x-shopify-event-id": opts.eventId ?? webhookId,
      "x-shopify-topic": opts.topic ?? "orders/updated",
      "x-shopify-shop-domain": "ledger-test.myshopify.com",
    },
  };
}

export function paddleSignature(body: string, secret: string, timestamp = nowSeconds()): string {
  return `ts=${timestamp};h1=${createHmac("sha256", secret).update(`${timestamp}:${body}`).digest("hex")}`;
}

export function signPaddle(body: string, secret: string, timestamp = nowSeconds()): Delivery {
  return {
    body,
    headers: { "content-type": "application/json", "paddle-signature": paddleSignature(body, secret, timestamp) },
  };
}

export function signSlack(body: string, secret: string, timestamp = nowSeconds()): Delivery {
  const sig = createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex");
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-slack-signature": `v0=${sig}`,
      "x-slack-request-timestamp": String(timestamp),
    },
  };
}

export function signStandard(body: string, secret: string, opts: { id?: string; timestamp?: number } = {}): Delivery {
  const id = opts.id ?? `msg_${randomUUID()}`;
  const timestamp = opts.timestamp ?? nowSeconds();
  const signature = new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signature,
    },
  };
}

/** Secrets the tests configure; a Standard Webhooks secret is whsec_ + base64. */
export const TEST_SECRETS: Record<LegacyKind, string> = {
  stripe: "whsec_test_stripe_secret_0123456789",
  github: "github-test-secret",
  shopify: "shopify-test-secret",
  paddle: "pdl_ntfset_01test_secret",
  slack: "slack-test-signing-secret",
  standard: `whsec_${Buffer.from("standard-test-secret-32-bytes-long!").toString("base64")}`,
};
