/**
 * A Standard Webhooks payload (`{ type, timestamp, data }`, per the spec): `timestamp` is the ISO time
 * the event happened (the entity version), `data.id` names the object. The message id travels in the
 * `webhook-id` header.
 */

export interface StandardEventInput {
  type?: string;
  /** e.g. "2024-04-12T10:18:49.344522Z". */
  timestamp?: string;
  id?: string;
  customerId?: string;
  email?: string;
  status?: string;
  plan?: string;
}

export function standardEvent(input: StandardEventInput = {}) {
  const id = input.id ?? "sub_2f9Ck7QmZx4R8tLwY1vB";
  return {
    type: input.type ?? "subscription.updated",
    timestamp: input.timestamp ?? "2024-04-12T10:18:49.344522Z",
    data: {
      id,
      object: "subscription",
      customer_id: input.customerId ?? "cust_7Hq2Lm9XkA3pZt",
      email: input.email ?? "Ada.Lovelace@Example.org",
      status: input.status ?? "active",
      plan: { id: input.plan ?? "plan_pro_monthly", interval: "month", amount: 2900, currency: "usd" },
      seats: 12,
      items: [
        { id: "item_9Lk2Pq7Rz4", price: "price_pro_seat", quantity: 12, amount: 2400 },
        { id: "item_3Vb8Nc1Xw6", price: "price_priority_support", quantity: 1, amount: 500 },
      ],
      billing_address: { line1: "12 St James's Square", city: "London", postal_code: "SW1Y 4JH", country: "GB" },
      current_period: { start: "2024-04-12T00:00:00Z", end: "2024-05-12T00:00:00Z" },
      cancel_at_period_end: false,
      metadata: { workspace: "ws_4kP9s2QeLr", source: "billing-service" },
      created_at: "2023-09-01T08:30:00.000000Z",
      updated_at: input.timestamp ?? "2024-04-12T10:18:49.344522Z",
    },
  };
}

/**
 * The body the standardwebhooks libraries sign in their own tests: no type, no timestamp, no data (the
 * spec only recommends them). Its id is the webhook-id header.
 */
export const STANDARD_LIBRARY_TEST_BODY = `{"test": 2432232314}`;

/** A sender that names the type under `event` (configure `typePath: "event"`) and sends no timestamp. */
export function standardEventTypedUnderEvent(input: { event?: string; id?: string } = {}) {
  return {
    event: input.event ?? "invoice.paid",
    data: { id: input.id ?? "inv_8Jd2Kq0Lm4", amount_paid: 2900, currency: "usd", customer_id: "cust_7Hq2Lm9XkA3pZt" },
  };
}
