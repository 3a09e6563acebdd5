import { createHmac, randomUUID } from "node:crypto";
import type { Source } from "@/lib/providers/types";

/**
 * Signs a body the way each provider does, with node:crypto only, so the demo and `npm run db:seed`
 * need no provider SDK at run time. (The tests sign with the SDKs and check these schemes against them.)
 */
export function signDelivery(
  source: Source,
  body: string,
  secret: string,
  extra: { id?: string; headers?: Record<string, string> } = {},
): Record<string, string> {
  const ts = Math.floor(Date.now() / 1000);
  const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data);
  const base = { "content-type": "application/json", ...extra.headers };
  switch (source) {
    case "stripe":
      return { ...base, "stripe-signature": `t=${ts},v1=${hmac(secret, `${ts}.${body}`).digest("hex")}` };
    case "github":
      return {
        ...base,
        "x-hub-signature-256": `sha256=${hmac(secret, body).digest("hex")}`,
        "x-github-delivery": extra.id ?? randomUUID(),
      };
    case "shopify":
      return {
        ...base,
        "x-shopify-hmac-sha256": hmac(secret, body).digest("base64"),
        "x-shopify-webhook-id": extra.id ?? randomUUID(),
        "x-shopify-event-id": randomUUID(),
      };
    case "paddle":
      return { ...base, "paddle-signature": `ts=${ts};h1=${hmac(secret, `${ts}:${body}`).digest("hex")}` };
    case "slack":
      return {
        ...base,
        "x-slack-request-timestamp": String(ts),
        "x-slack-signature": `v0=${hmac(secret, `v0:${ts}:${body}`).digest("hex")}`,
      };
    case "standard": {
      const id = extra.id ?? `msg_${randomUUID()}`;
      const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
      return {
        ...base,
        "webhook-id": id,
        "webhook-timestamp": String(ts),
        "webhook-signature": `v1,${hmac(key, `${id}.${ts}.${body}`).digest("base64")}`,
      };
    }
  }
}
