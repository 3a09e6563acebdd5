/**
 * Body of a Shopify `orders/updated` (or orders/create) webhook, REST-shaped as Shopify sends it:
 * numeric ids next to their `admin_graphql_api_id`, timestamps in the shop's zone with an offset.
 * The webhook id, topic and event id travel in headers (X-Shopify-Webhook-Id, X-Shopify-Topic, …).
 */

export interface ShopifyOrderInput {
  id?: number;
  /** The entity version, e.g. "2024-04-12T06:18:49-04:00". */
  updatedAt?: string;
  email?: string;
  customerId?: number;
  customerEmail?: string;
  financialStatus?: string;
  fulfillmentStatus?: string | null;
  totalPrice?: string;
}

export function shopifyOrder(input: ShopifyOrderInput = {}) {
  const id = input.id ?? 5745183776802;
  const customerId = input.customerId ?? 7013312364735;
  const email = input.email ?? "Jon.Snow@Example.com";
  const totalPrice = input.totalPrice ?? "199.00";
  const money = (amount: string) => ({
    shop_money: { amount, currency_code: "USD" },
    presentment_money: { amount, currency_code: "USD" },
  });
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    app_id: 580111,
    browser_ip: "203.0.113.7",
    buyer_accepts_marketing: false,
    cancel_reason: null,
    cancelled_at: null,
    confirmation_number: "K3J8QZ1XA",
    confirmed: true,
    contact_email: email,
    created_at: "2024-04-12T06:02:11-04:00",
    currency: "USD",
    current_total_price: totalPrice,
    current_total_price_set: money(totalPrice),
    email,
    financial_status: input.financialStatus ?? "paid",
    fulfillment_status: input.fulfillmentStatus === undefined ? null : input.fulfillmentStatus,
    name: "#1042",
    order_number: 1042,
    processed_at: "2024-04-12T06:02:10-04:00",
    source_name: "web",
    subtotal_price: totalPrice,
    tags: "",
    test: false,
    total_price: totalPrice,
    total_price_set: money(totalPrice),
    total_tax: "0.00",
    updated_at: input.updatedAt ?? "2024-04-12T06:18:49-04:00",
    customer: {
      id: customerId,
      email: input.customerEmail ?? email,
      created_at: "2023-11-02T09:14:55-04:00",
      updated_at: "2024-04-12T06:02:12-04:00",
      first_name: "Jon",
      last_name: "Snow",
      state: "enabled",
      verified_email: true,
      currency: "USD",
      phone: null,
      admin_graphql_api_id: `gid://shopify/Customer/${customerId}`,
      default_address: {
        id: 9185243627711,
        customer_id: customerId,
        city: "Ottawa",
        country_code: "CA",
        default: true,
      },
    },
    line_items: [
      {
        id: 14823910015266,
        admin_graphql_api_id: "gid://shopify/LineItem/14823910015266",
        fulfillable_quantity: 1,
        fulfillment_service: "manual",
        fulfillment_status: null,
        gift_card: false,
        grams: 567,
        name: "IPod Nano - 8GB - Pink",
        price: totalPrice,
        price_set: money(totalPrice),
        product_exists: true,
        product_id: 8961234567890,
        quantity: 1,
        requires_shipping: true,
        sku: "IPOD2008PINK",
        taxable: true,
        title: "IPod Nano - 8GB",
        total_discount: "0.00",
        variant_id: 47123456789012,
        variant_title: "Pink",
        vendor: "Apple",
        tax_lines: [],
      },
    ],
    shipping_address: {
      first_name: "Jon",
      last_name: "Snow",
      address1: "123 Amoebobacterieae St",
      city: "Ottawa",
      province_code: "ON",
      country_code: "CA",
      zip: "K2P0V6",
    },
  };
}

/**
 * The exact text of an `orders/create` test notification ("Send test notification" in the admin), trimmed:
 * its ids have 18 digits, beyond 2^53, so only the text holds them exactly (JSON.parse turns
 * 820982911946154508 into 820982911946154500). Kept as text, never built from numbers.
 */
export const SHOPIFY_TEST_ORDER_TEXT = `{"id":820982911946154508,"admin_graphql_api_id":"gid://shopify/Order/820982911946154508",\
"app_id":null,"browser_ip":null,"buyer_accepts_marketing":true,"cancel_reason":"customer","cancelled_at":"2021-12-31T19:00:00-05:00",\
"confirmation_number":null,"confirmed":false,"contact_email":"jon@example.com","created_at":"2021-12-31T19:00:00-05:00",\
"currency":"USD","email":"jon@example.com","financial_status":"voided","fulfillment_status":"pending","name":"#9999",\
"order_number":1234,"test":true,"total_price":"403.00","updated_at":"2021-12-31T19:00:00-05:00",\
"customer":{"id":115310627314723954,"email":"john@example.com","created_at":null,"updated_at":null,"first_name":"John",\
"last_name":"Smith","state":"disabled","verified_email":true,"currency":"USD",\
"admin_graphql_api_id":"gid://shopify/Customer/115310627314723954","default_address":{"id":715243470612851245,\
"customer_id":115310627314723954,"city":"Ottawa","country_code":"CA","default":true}},\
"line_items":[{"id":866550311766439020,"admin_graphql_api_id":"gid://shopify/LineItem/866550311766439020",\
"name":"Aviator sunglasses","price":"89.99","product_id":788032119674292922,"quantity":1,"sku":"SKU2006-001",\
"title":"Aviator sunglasses","variant_id":null,"vendor":null}]}`;
