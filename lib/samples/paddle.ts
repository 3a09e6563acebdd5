/**
 * A Paddle Billing `subscription.*` notification, in the shape of PaddleHQ/paddle-node-sdk's
 * notification mocks: snake_case, `occurred_at` with six fractional digits (the entity version,
 * exact to the microsecond), ids with typed prefixes (evt_, ntf_, sub_, ctm_, pri_, …).
 */

export interface PaddleSubscriptionEventInput {
  eventId?: string;
  eventType?: string;
  /** e.g. "2024-04-12T10:18:49.621022Z". */
  occurredAt?: string;
  notificationId?: string;
  subscriptionId?: string;
  customerId?: string;
  priceId?: string;
  status?: string;
}

export function paddleSubscriptionEvent(input: PaddleSubscriptionEventInput = {}) {
  const occurredAt = input.occurredAt ?? "2024-04-12T10:18:49.621022Z";
  const priceId = input.priceId ?? "pri_01gsz8x8sawmvhz1pv30nge1ke";
  const id = input.subscriptionId ?? "sub_01hv8x29kz0t586xy6zn1a62ny";
  return {
    event_id: input.eventId ?? "evt_01hv8x2a7ypz5r9hx1m9b5b0nq",
    event_type: input.eventType ?? "subscription.updated",
    occurred_at: occurredAt,
    notification_id: input.notificationId ?? "ntf_01hv8x2ad0c9ey5jkgnwm7k3j1",
    data: {
      id,
      status: input.status ?? "active",
      transaction_id: "txn_01hv8wptq8987qeep44cyrewp9",
      customer_id: input.customerId ?? "ctm_01hv6y1jedq4p1n0yqn5ba3ky4",
      address_id: "add_01hv8gq3318ktkfengj2r75gfx",
      business_id: null,
      currency_code: "USD",
      created_at: "2024-04-12T10:18:48.831Z",
      updated_at: occurredAt,
      started_at: "2024-04-12T10:18:47.635628Z",
      first_billed_at: "2024-04-12T10:18:47.635628Z",
      next_billed_at: "2024-05-12T10:18:47.635628Z",
      paused_at: null,
      canceled_at: null,
      discount: null,
      collection_mode: "automatic",
      billing_details: null,
      current_billing_period: { starts_at: "2024-04-12T10:18:47.635628Z", ends_at: "2024-05-12T10:18:47.635628Z" },
      billing_cycle: { interval: "month", frequency: 1 },
      scheduled_change: null,
      items: [
        {
          status: "active",
          quantity: 10,
          recurring: true,
          created_at: "2024-04-12T10:18:48.831Z",
          updated_at: occurredAt,
          previously_billed_at: "2024-04-12T10:18:47.635628Z",
          next_billed_at: "2024-05-12T10:18:47.635628Z",
          trial_dates: null,
          price: {
            id: priceId,
            product_id: "pro_01gsz4t5hdjse780zja8vvr7jg",
            description: "Monthly (per seat)",
            type: "standard",
            name: "Monthly (per seat)",
            tax_mode: "account_setting",
            billing_cycle: { interval: "month", frequency: 1 },
            trial_period: null,
            unit_price: { amount: "3000", currency_code: "USD" },
            unit_price_overrides: [],
            quantity: { minimum: 1, maximum: 999 },
            status: "active",
            custom_data: null,
            import_meta: null,
          },
        },
      ],
      custom_data: null,
      management_urls: {
        update_payment_method: `https://buyer-portal.paddle.com/subscriptions/${id}/update-payment-method`,
        cancel: `https://buyer-portal.paddle.com/subscriptions/${id}/cancel`,
      },
      import_meta: null,
    },
  };
}
