/**
 * Stripe event payloads in the shape of stripe/openapi `fixtures3.json` (event, subscription, invoice),
 * trimmed of null-only fields. `created` (the event) and `objectCreated` (the object) differ on purpose:
 * the entity version is the event's.
 */

/** Thirty days in seconds: the samples' monthly billing period. */
const MONTH = 2_592_000;

/** The v1 event around a snapshot (`data.object`), the same envelope on every type; keys in Stripe's order. */
function stripeEvent<Type extends string, Data>(event: {
  id: string;
  created: number;
  data: Data;
  request: { id: string | null; idempotency_key: string | null };
  type: Type;
}) {
  return {
    id: event.id,
    object: "event",
    api_version: "2024-04-10",
    created: event.created,
    data: event.data,
    livemode: false,
    pending_webhooks: 1,
    request: event.request,
    type: event.type,
  };
}

export interface StripeSubscriptionEventInput {
  eventId?: string;
  type?: "customer.subscription.created" | "customer.subscription.updated" | "customer.subscription.deleted";
  /** Event creation, unix seconds: the entity version. */
  created?: number;
  subscriptionId?: string;
  customerId?: string;
  status?: string;
  priceId?: string;
  /** data.object.created: fixed for the life of the subscription. */
  objectCreated?: number;
  previousAttributes?: Record<string, unknown>;
  /** The current period's start (a month long); defaults to the event's creation. */
  periodStart?: number;
  latestInvoiceId?: string;
  paymentMethodId?: string;
  /** The subscription item (si_…), which its invoices' lines name too. */
  itemId?: string;
}

export function stripeSubscriptionEvent(input: StripeSubscriptionEventInput = {}) {
  const subscriptionId = input.subscriptionId ?? "sub_1MoqxHLgUG5tbmjcG8lOfx2N";
  const objectCreated = input.objectCreated ?? 1679588735;
  const created = input.created ?? 1712917129;
  const periodStart = input.periodStart ?? created;
  return stripeEvent({
    id: input.eventId ?? "evt_1P4nHlLgUG5tbmjcQvZ6LJ6R",
    created,
    request: { id: "req_7Gv5JYb2GnUqY9", idempotency_key: "3f6c8a1e-52f1-4c2e-9d0b-6a7e4b1c2d3f" },
    type: input.type ?? "customer.subscription.updated",
    data: {
      object: {
        id: subscriptionId,
        object: "subscription",
        application: null,
        application_fee_percent: null,
        automatic_tax: { enabled: false, liability: null },
        billing_cycle_anchor: objectCreated,
        cancel_at: null,
        cancel_at_period_end: false,
        canceled_at: null,
        cancellation_details: { comment: null, feedback: null, reason: null },
        collection_method: "charge_automatically",
        created: objectCreated,
        currency: "usd",
        current_period_end: periodStart + MONTH,
        current_period_start: periodStart,
        customer: input.customerId ?? "cus_NZbFQAsc0ptasX",
        days_until_due: null,
        default_payment_method: input.paymentMethodId ?? "pm_1MoqxGLgUG5tbmjcVy8sEbOu",
        description: null,
        discount: null,
        ended_at: null,
        items: {
          object: "list",
          data: [
            {
              id: input.itemId ?? "si_Na0zOJYhm6UPMj",
              object: "subscription_item",
              created: objectCreated,
              metadata: {},
              price: {
                id: input.priceId ?? "price_1MoS37LgUG5tbmjcCA3GTNX8",
                object: "price",
                active: true,
                billing_scheme: "per_unit",
                created: 1679492997,
                currency: "usd",
                livemode: false,
                lookup_key: null,
                nickname: null,
                product: "prod_NZbFOV0OmNHxwl",
                recurring: { interval: "month", interval_count: 1, usage_type: "licensed" },
                tax_behavior: "unspecified",
                type: "recurring",
                unit_amount: 2000,
                unit_amount_decimal: "2000",
              },
              quantity: 1,
              subscription: subscriptionId,
              tax_rates: [],
            },
          ],
          has_more: false,
          url: `/v1/subscription_items?subscription=${subscriptionId}`,
        },
        latest_invoice: input.latestInvoiceId ?? "in_1MoqxGLgUG5tbmjcJeILGSau",
        livemode: false,
        metadata: {},
        pause_collection: null,
        payment_settings: {
          payment_method_options: null,
          payment_method_types: null,
          save_default_payment_method: "off",
        },
        pending_update: null,
        schedule: null,
        start_date: objectCreated,
        status: input.status ?? "active",
        test_clock: null,
        trial_end: null,
        trial_settings: { end_behavior: { missing_payment_method: "create_invoice" } },
        trial_start: null,
      },
      previous_attributes: input.previousAttributes ?? { status: "past_due" },
    },
  });
}

export interface StripeInvoicePaidEventInput {
  eventId?: string;
  created?: number;
  invoiceId?: string;
  customerId?: string;
  customerEmail?: string;
  subscriptionId?: string;
  priceId?: string;
  amount?: number;
  chargeId?: string;
  paymentIntentId?: string;
  /** The invoice number a customer sees ("4F0B2C1D-0001"). */
  number?: string;
  itemId?: string;
  /**
   * The period it bills, on its line and at the top. Without it, as Stripe writes a renewal: the line bills
   * the month from `created`, the top-level period looks back on the month before.
   */
  period?: { start: number; end: number };
}

export function stripeInvoicePaidEvent(input: StripeInvoicePaidEventInput = {}) {
  const invoiceId = input.invoiceId ?? "in_1MoqxGLgUG5tbmjcJeILGSau";
  const created = input.created ?? 1712917130;
  const amount = input.amount ?? 2000;
  const subscriptionId = input.subscriptionId ?? "sub_1MoqxHLgUG5tbmjcG8lOfx2N";
  const line = input.period ?? { start: created, end: created + MONTH };
  const top = input.period ?? { start: created - MONTH, end: created };
  return stripeEvent({
    id: input.eventId ?? "evt_1P4nHmLgUG5tbmjcWm0Ip3Xq",
    created,
    request: { id: null, idempotency_key: null },
    type: "invoice.paid",
    data: {
      object: {
        id: invoiceId,
        object: "invoice",
        account_country: "US",
        account_name: "Ledger Test Co",
        amount_due: amount,
        amount_paid: amount,
        amount_remaining: 0,
        attempt_count: 1,
        attempted: true,
        billing_reason: "subscription_cycle",
        charge: input.chargeId ?? "ch_1MoS30LgUG5tbmjcjfsQqpHI",
        collection_method: "charge_automatically",
        created: created - 3600,
        currency: "usd",
        customer: input.customerId ?? "cus_NZbFQAsc0ptasX",
        customer_email: input.customerEmail ?? "jenny.rosen@example.com",
        customer_name: "Jenny Rosen",
        hosted_invoice_url: `https://invoice.stripe.com/i/acct_1MoRdlLgUG5tbmjc/test_${invoiceId}`,
        lines: {
          object: "list",
          data: [
            {
              id: "il_1MoqxDLgUG5tbmjct1y8AVhx",
              object: "line_item",
              amount,
              currency: "usd",
              description: `1 × Ledger Pro (at $${(amount / 100).toFixed(2)} / month)`,
              period: { end: line.end, start: line.start },
              price: {
                id: input.priceId ?? "price_1MoS37LgUG5tbmjcCA3GTNX8",
                object: "price",
                product: "prod_NZbFOV0OmNHxwl",
                recurring: { interval: "month", interval_count: 1, usage_type: "licensed" },
                type: "recurring",
                unit_amount: amount,
              },
              proration: false,
              quantity: 1,
              subscription: subscriptionId,
              subscription_item: input.itemId ?? "si_Na0zOJYhm6UPMj",
              type: "subscription",
            },
          ],
          has_more: false,
          url: `/v1/invoices/${invoiceId}/lines`,
        },
        livemode: false,
        metadata: {},
        number: input.number ?? "4F0B2C1D-0001",
        paid: true,
        payment_intent: input.paymentIntentId ?? "pi_1MoS6tLgUG5tbmjcQ62U6djv",
        period_end: top.end,
        period_start: top.start,
        status: "paid",
        status_transitions: { finalized_at: created - 3600, paid_at: created, voided_at: null },
        subscription: subscriptionId,
        subtotal: amount,
        tax: null,
        total: amount,
      },
    },
  });
}

export interface StripeThinEventInput {
  eventId?: string;
  type?: string;
  /** ISO 8601 with milliseconds, e.g. "2024-09-26T17:46:22.134Z": the entity version. */
  created?: string;
  relatedObject?: { id: string; type: string; url: string } | null;
  context?: string | null;
}

/**
 * A thin event as an event destination with the thin payload style delivers it (stripe-node's
 * V2.Core.EventNotification, docs "Types of events"): a reference to the object, no snapshot. `data` and
 * `changes` are fetched attributes, absent from the delivery.
 */
export function stripeThinEvent(input: StripeThinEventInput = {}) {
  const meter = "mtr_test_61RCjiqdTDC91zgip41IqPCzPnxqqSVc";
  return {
    id: input.eventId ?? "evt_test_65RCjj4EqW1sabcjs2Z16RCMoNQdSQkOWvfL6L5uU2K40u",
    object: "v2.core.event",
    type: input.type ?? "v1.billing.meter.error_report_triggered",
    livemode: false,
    created: input.created ?? "2024-09-26T17:46:22.134Z",
    context: input.context === undefined ? null : input.context,
    reason: null,
    related_object:
      input.relatedObject === undefined
        ? { id: meter, type: "billing.meter", url: `/v1/billing/meters/${meter}` }
        : input.relatedObject,
  };
}

/** A v2 account thin event with a bracketed type, e.g. v2.core.account[requirements].updated. */
export function stripeThinAccountEvent(
  input: Omit<StripeThinEventInput, "relatedObject"> & { accountId?: string } = {},
) {
  const account = input.accountId ?? "acct_1QjvSdQ9RKHgCVdK";
  return stripeThinEvent({
    eventId: "evt_test_65RGh2aXeZwN5SxmJ7p16RCMoNQdSQkOWvfL6L5uU2K40u",
    type: "v2.core.account[requirements].updated",
    created: "2025-02-11T09:30:12.456Z",
    ...input,
    relatedObject: { id: account, type: "v2.core.account", url: `/v2/core/accounts/${account}` },
  });
}
