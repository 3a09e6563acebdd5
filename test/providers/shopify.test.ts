import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { shopify } from "@/lib/providers/shopify";
import { SHOPIFY_TEST_ORDER_TEXT, shopifyOrder } from "@/test/fixtures/shopify";
import { signShopify, TEST_SECRETS, type Delivery } from "@/test/sign";

const NOW = 1_712_917_200;
const SECRET = TEST_SECRETS.shopify;
const OLD = "shopify-old-secret";
const NEW = "shopify-new-secret";
const STRANGER = "shopify-someone-elses-secret";
const WEBHOOK_ID = "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043";
const EVENT_ID = "98880550-7158-44d4-b7cd-2c97c8a091b5";
const body = JSON.stringify(shopifyOrder());

function verify(d: Delivery, secrets: string[] = [SECRET], now = NOW) {
  return shopify.verify({
    rawBody: Buffer.from(d.body),
    headers: new Headers(d.headers),
    secrets,
    toleranceSeconds: 300,
    now,
  });
}

function withSignature(header: string): Delivery {
  return { body, headers: { "content-type": "application/json", "x-shopify-hmac-sha256": header } };
}

function tamperOneByte(text: string): string {
  const i = text.indexOf('"paid"') + 1;
  return `${text.slice(0, i)}P${text.slice(i + 1)}`;
}

describe("shopify verify", () => {
  it("[shopify] a delivery signed with the base64 HMAC of the body verifies", () => {
    expect(verify(signShopify(body, SECRET))).toEqual({ ok: true });
  });

  it("[shopify] a signature is accepted whatever the clock says: Shopify signs no timestamp", () => {
    expect(verify(signShopify(body, SECRET), [SECRET], NOW + 86_400 * 365)).toEqual({ ok: true });
  });

  it("[shopify] during rotation a delivery signed with the old or the new secret verifies", () => {
    expect(verify(signShopify(body, OLD), [OLD, NEW])).toEqual({ ok: true });
    expect(verify(signShopify(body, NEW), [OLD, NEW])).toEqual({ ok: true });
  });

  it("[shopify] during rotation a delivery signed with a third secret is refused as a signature mismatch", () => {
    expect(verify(signShopify(body, STRANGER), [OLD, NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[shopify] a body with one byte changed is refused", () => {
    const d = signShopify(body, SECRET);
    expect(verify({ ...d, body: tamperOneByte(d.body) })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[shopify] a delivery signed with the wrong secret is refused", () => {
    expect(verify(signShopify(body, STRANGER))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[shopify] a hex digest where base64 is expected is refused", () => {
    const hex = Buffer.from(signShopify(body, SECRET).headers["x-shopify-hmac-sha256"] ?? "", "base64").toString("hex");
    expect(verify(withSignature(hex))).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[shopify] a delivery without X-Shopify-Hmac-Sha256 is refused naming the header", () => {
    expect(verify({ body, headers: { "content-type": "application/json" } })).toEqual({
      ok: false,
      reason: "missing X-Shopify-Hmac-Sha256 (or Shopify-Hmac-Sha256) header",
      refusal: "bad_signature",
    });
  });

  it.each(["garbage!", "not base64 at all", "sha256=abc", "====", "%%%"])(
    "[shopify] a malformed X-Shopify-Hmac-Sha256 %j is refused without throwing",
    (header) => {
      expect(verify(withSignature(header))).toEqual({
        ok: false,
        reason: "malformed X-Shopify-Hmac-Sha256 header (want base64)",
        refusal: "bad_signature",
      });
    },
  );
});

describe("shopify describe", () => {
  const headersFor = (over: Record<string, string | null> = {}) => {
    const h = new Headers({
      "x-shopify-webhook-id": WEBHOOK_ID,
      "x-shopify-event-id": EVENT_ID,
      "x-shopify-topic": "orders/updated",
    });
    for (const [k, v] of Object.entries(over)) {
      if (v === null) h.delete(k);
      else h.set(k, v);
    }
    return h;
  };

  it("[shopify] orders/updated is keyed by X-Shopify-Event-Id and names the order, versioned by updated_at in microseconds", () => {
    const payload = shopifyOrder({ id: 5745183776802, updatedAt: "2024-04-12T06:18:49-04:00" });
    expect(shopify.describe(payload, headersFor())).toStrictEqual({
      ok: true,
      event: {
        eventId: `${EVENT_ID}:orders/updated`,
        eventType: "orders/updated",
        entity: { type: "order", id: "5745183776802", version: 1_712_917_129_000_000 },
      },
    });
  });

  it("[shopify] two deliveries of one event (two webhook ids, one event id) get one event id", () => {
    const a = shopify.describe(shopifyOrder(), headersFor({ "x-shopify-webhook-id": "w-first-subscription" }));
    const b = shopify.describe(shopifyOrder(), headersFor({ "x-shopify-webhook-id": "w-second-subscription" }));
    expect(a.ok && a.event.eventId).toBe(`${EVENT_ID}:orders/updated`);
    expect(b.ok && b.event.eventId).toBe(`${EVENT_ID}:orders/updated`);
  });

  it("[shopify] one merchant action's event id on two topics is two events: no topic is dropped as a duplicate", () => {
    const created = shopify.describe(shopifyOrder(), headersFor({ "x-shopify-topic": "orders/create" }));
    const paid = shopify.describe(shopifyOrder(), headersFor({ "x-shopify-topic": "orders/paid" }));
    expect(created.ok && created.event.eventId).toBe(`${EVENT_ID}:orders/create`);
    expect(paid.ok && paid.event.eventId).toBe(`${EVENT_ID}:orders/paid`);
  });

  it("[shopify] a delivery with only X-Shopify-Webhook-Id is keyed by the webhook id", () => {
    const described = shopify.describe(shopifyOrder(), headersFor({ "x-shopify-event-id": null }));
    expect(described.ok && described.event.eventId).toBe(WEBHOOK_ID);
  });

  it("[shopify] a blank X-Shopify-Event-Id counts as absent: the webhook id keys the event", () => {
    const described = shopify.describe(shopifyOrder(), headersFor({ "x-shopify-event-id": "  " }));
    expect(described.ok && described.event.eventId).toBe(WEBHOOK_ID);
  });

  it("[shopify] the same instant written in two offsets gives the same version", () => {
    const eastern = shopify.describe(shopifyOrder({ updatedAt: "2024-04-12T06:18:49-04:00" }), headersFor());
    const utc = shopify.describe(shopifyOrder({ updatedAt: "2024-04-12T10:18:49Z" }), headersFor());
    expect(eastern.ok && eastern.event.entity?.version).toBe(1_712_917_129_000_000);
    expect(utc.ok && utc.event.entity?.version).toBe(1_712_917_129_000_000);
  });

  it("[shopify] a later updated_at gives a strictly greater version", () => {
    const earlier = shopify.describe(shopifyOrder({ updatedAt: "2024-04-12T06:18:49-04:00" }), headersFor());
    const later = shopify.describe(shopifyOrder({ updatedAt: "2024-04-12T06:18:50-04:00" }), headersFor());
    expect(later.ok && later.event.entity?.version).toBe(1_712_917_130_000_000);
    expect(earlier.ok && earlier.event.entity?.version).toBe(1_712_917_129_000_000);
  });

  it("[shopify] customers/update names a customer", () => {
    const payload = { id: 7013312364735, email: "jon.snow@example.com", updated_at: "2024-04-12T06:02:12-04:00" };
    expect(shopify.describe(payload, headersFor({ "x-shopify-topic": "customers/update" }))).toStrictEqual({
      ok: true,
      event: {
        eventId: `${EVENT_ID}:customers/update`,
        eventType: "customers/update",
        entity: { type: "customer", id: "7013312364735", version: 1_712_916_132_000_000 },
      },
    });
  });

  it("[shopify] a delivery with neither id header cannot be described and names both headers", () => {
    const headers = headersFor({ "x-shopify-webhook-id": null, "x-shopify-event-id": null });
    expect(shopify.describe(shopifyOrder(), headers)).toEqual({
      ok: false,
      reason: "missing event id (X-Shopify-Event-Id or X-Shopify-Webhook-Id header)",
    });
  });

  it("[shopify] a delivery without X-Shopify-Topic cannot be described and says which header is missing", () => {
    expect(shopify.describe(shopifyOrder(), headersFor({ "x-shopify-topic": null }))).toEqual({
      ok: false,
      reason: "missing event type (X-Shopify-Topic header)",
    });
  });

  it("[shopify] signShopify sends the event id and topic that describe reads", () => {
    const d = signShopify(body, SECRET, { webhookId: WEBHOOK_ID, eventId: EVENT_ID, topic: "orders/updated" });
    const described = shopify.describe(JSON.parse(d.body), new Headers(d.headers));
    expect(described.ok && described.event.eventId).toBe(`${EVENT_ID}:orders/updated`);
    expect(described.ok && described.event.entity?.id).toBe("5745183776802");
  });
});

// Shopify's newer deliveries (Events, and webhooks moving to them) drop the X- prefix: Shopify-Hmac-Sha256,
// Shopify-Topic, Shopify-Webhook-Id, Shopify-Event-Id, Shopify-Triggered-At (shopify-api's header names).
describe("shopify header names without X-", () => {
  const unprefixed = (over: Record<string, string> = {}) => ({
    "content-type": "application/json",
    "shopify-hmac-sha256": createHmac("sha256", SECRET).update(body).digest("base64"),
    "shopify-topic": "orders/updated",
    "shopify-webhook-id": WEBHOOK_ID,
    "shopify-event-id": EVENT_ID,
    "shopify-triggered-at": "2024-04-12T10:18:50.123456Z",
    "shopify-shop-domain": "ledger-test.myshopify.com",
    "shopify-api-version": "2026-04",
    ...over,
  });

  it("[shopify] a delivery signed in Shopify-Hmac-Sha256 alone verifies", () => {
    expect(verify({ body, headers: unprefixed() })).toEqual({ ok: true });
  });

  it("[shopify] a wrong Shopify-Hmac-Sha256 is a signature mismatch, not a missing header", () => {
    const d = {
      body,
      headers: unprefixed({
        "shopify-hmac-sha256": signShopify(body, STRANGER).headers["x-shopify-hmac-sha256"] ?? "",
      }),
    };
    expect(verify(d)).toEqual({ ok: false, reason: "signature mismatch", refusal: "bad_signature" });
  });

  it("[shopify] a delivery with both spellings verifies when either signature matches", () => {
    const good = createHmac("sha256", SECRET).update(body).digest("base64");
    const bad = createHmac("sha256", STRANGER).update(body).digest("base64");
    expect(
      verify({ body, headers: unprefixed({ "x-shopify-hmac-sha256": bad, "shopify-hmac-sha256": good }) }),
    ).toEqual({
      ok: true,
    });
  });

  it("[shopify] a malformed Shopify-Hmac-Sha256 is refused as malformed", () => {
    expect(verify({ body, headers: unprefixed({ "shopify-hmac-sha256": "%%%" }) })).toEqual({
      ok: false,
      reason: "malformed X-Shopify-Hmac-Sha256 header (want base64)",
      refusal: "bad_signature",
    });
  });

  it("[shopify] a delivery with only the unprefixed headers is keyed by Shopify-Event-Id and typed by Shopify-Topic", () => {
    const described = shopify.describe(JSON.parse(body), new Headers(unprefixed()));
    expect(described).toStrictEqual({
      ok: true,
      event: {
        eventId: `${EVENT_ID}:orders/updated`,
        eventType: "orders/updated",
        entity: { type: "order", id: "5745183776802", version: 1_712_917_129_000_000 },
      },
    });
  });

  it("[shopify] with only Shopify-Webhook-Id (no event id), the webhook id keys the event", () => {
    const headers = new Headers(unprefixed());
    headers.delete("shopify-event-id");
    const described = shopify.describe(JSON.parse(body), headers);
    expect(described.ok && described.event.eventId).toBe(WEBHOOK_ID);
  });

  it("[shopify] an Events delivery (topic Product, action update) names the product from Shopify-Resource-Id", () => {
    const payload = { topic: "Product", action: "update", handle: "product-sync", fields_changed: ["title"] };
    const headers = new Headers(
      unprefixed({
        "shopify-topic": "Product",
        "shopify-action": "update",
        "shopify-resource-id": "gid://shopify/Product/9554194432293",
      }),
    );
    expect(shopify.describe(payload, headers)).toStrictEqual({
      ok: true,
      event: {
        eventId: `${EVENT_ID}:Product/update`,
        eventType: "Product/update",
        entity: { type: "product", id: "9554194432293" },
      },
    });
  });
});

describe("shopify ids beyond 2^53", () => {
  it("[shopify] an 18-digit order id is kept exactly, from admin_graphql_api_id, though JSON.parse rounds the number", () => {
    const body =
      '{"id":820982911946154508,"admin_graphql_api_id":"gid://shopify/Order/820982911946154508","updated_at":"2026-11-29T10:00:00-05:00"}';
    const described = shopify.describe(
      JSON.parse(body),
      new Headers({ "x-shopify-webhook-id": "w1", "x-shopify-topic": "orders/updated" }),
    );
    expect(described.ok && described.event.entity?.id).toBe("820982911946154508");
  });

  it("[shopify] the admin's test notification is keyed and named exactly from its text", () => {
    const headers = new Headers({ "shopify-event-id": EVENT_ID, "shopify-topic": "orders/create" });
    const described = shopify.describe(JSON.parse(SHOPIFY_TEST_ORDER_TEXT), headers);
    expect(described.ok && described.event.entity).toStrictEqual({
      type: "order",
      id: "820982911946154508",
      version: 1_640_995_200_000_000,
    });
  });
});
