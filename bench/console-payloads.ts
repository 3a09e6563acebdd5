/**
 * The payloads `npm run bench:console` seeds, with placeholders (ids, email, name) that SQL `replace()` fills per
 * row. `full`: the lib/samples builders (0.7–3 KB, ~1.9 KB on average). `compact` (`--payload compact`): the same
 * events cut to the fields the ledger reads (ids, email, name, type, version), 200–400 bytes, so ten million
 * events fit the disk; the subjects, entities and names each finds are the same.
 */
import { githubIssuesOpened, githubPullRequestEvent } from "@/lib/samples/github";
import { paddleSubscriptionEvent } from "@/lib/samples/paddle";
import { shopifyOrder } from "@/lib/samples/shopify";
import { slackEventCallback } from "@/lib/samples/slack";
import { standardEvent } from "@/lib/samples/standard";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/lib/samples/stripe";

/** Placeholders: suffixes that keep each id matching lib/ledger/subjects.ts, so the template's subjects are the row's. */
export const TOKEN = {
  event: "TOKEVT00001",
  customer: "TOKCUS00001",
  object: "TOKOBJ00001",
  email: "tokmail00001@example.com",
  n1: "9990000001",
  n2: "9990000002",
  first: "Tokfirst",
  last: "Toklast",
} as const;

const E = TOKEN.event,
  C = TOKEN.customer,
  O = TOKEN.object;
const NAME = `${TOKEN.first} ${TOKEN.last}`;

type Json = Record<string, unknown>;
export type StripeSubType =
  "customer.subscription.created" | "customer.subscription.updated" | "customer.subscription.deleted";

export interface Payloads {
  subscription(type: StripeSubType): Json;
  invoice(type: string): Json;
  pullRequest(action: "opened" | "synchronize" | "closed"): Json;
  issue(): Json;
  order(): Json;
  paddle(type: string): Json;
  slack(kind: "message" | "reaction_added"): Json;
  standard(): Json;
}

const author = { login: `dev${C}`, id: Number(TOKEN.n2) };
const slackReaction = {
  type: "reaction_added",
  user: `U${C}`,
  reaction: "thumbsup",
  item: { type: "message", channel: `C${O}`, ts: "1712917129.000200" },
  event_ts: "1712917130.000300",
};

export const fullPayloads: Payloads = {
  subscription: (type) =>
    stripeSubscriptionEvent({ type, eventId: `evt_${E}`, subscriptionId: `sub_${C}`, customerId: `cus_${C}` }),
  invoice: (type) => {
    const inv = stripeInvoicePaidEvent({
      eventId: `evt_${E}`,
      invoiceId: `in_${O}`,
      customerId: `cus_${C}`,
      customerEmail: TOKEN.email,
      subscriptionId: `sub_${C}`,
    });
    return { ...inv, type, data: { object: { ...inv.data.object, customer_name: NAME } } };
  },
  pullRequest: (action) => githubPullRequestEvent({ action, pullRequestId: Number(TOKEN.n1), author }),
  issue: () => githubIssuesOpened({ issueId: Number(TOKEN.n1), author }),
  order: () => {
    const order = shopifyOrder({
      id: Number(TOKEN.n1),
      customerId: Number(TOKEN.n2),
      email: TOKEN.email,
      customerEmail: TOKEN.email,
    });
    return { ...order, customer: { ...order.customer, first_name: TOKEN.first, last_name: TOKEN.last } };
  },
  paddle: (eventType) =>
    paddleSubscriptionEvent({ eventId: `evt_${E}`, eventType, subscriptionId: `sub_${C}`, customerId: `ctm_${C}` }),
  slack: (kind) => {
    const slack = slackEventCallback({ eventId: `Ev${E}`, channel: `C${O}`, user: `U${C}` });
    return kind === "message" ? slack : { ...slack, event: slackReaction };
  },
  standard: () => standardEvent({ id: `sub_${O}`, customerId: `cus_${C}`, email: TOKEN.email }),
};

const stripeEvent = (type: string, object: Json): Json => ({
  id: `evt_${E}`,
  object: "event",
  created: 1712917129,
  data: { object },
  type,
});

export const compactPayloads: Payloads = {
  subscription: (type) =>
    stripeEvent(type, {
      id: `sub_${C}`,
      object: "subscription",
      customer: `cus_${C}`,
      status: "active",
      plan: { id: "price_1MoS37LgUG5tbmjcCA3GTNX8" },
    }),
  invoice: (type) =>
    stripeEvent(type, {
      id: `in_${O}`,
      object: "invoice",
      customer: `cus_${C}`,
      customer_email: TOKEN.email,
      customer_name: NAME,
      subscription: `sub_${C}`,
      amount_paid: 2000,
      currency: "usd",
      status: "paid",
    }),
  pullRequest: (action) => ({
    action,
    number: 2,
    pull_request: { id: Number(TOKEN.n1), number: 2, state: action === "closed" ? "closed" : "open", user: author },
    repository: { id: 186853002, full_name: "Codertocat/Hello-World" },
    sender: author,
  }),
  issue: () => ({
    action: "opened",
    issue: { id: Number(TOKEN.n1), number: 1, state: "open", user: author },
    repository: { id: 186853002, full_name: "Codertocat/Hello-World" },
    sender: author,
  }),
  order: () => ({
    id: Number(TOKEN.n1),
    admin_graphql_api_id: `gid://shopify/Order/${TOKEN.n1}`,
    email: TOKEN.email,
    currency: "USD",
    total_price: "199.00",
    financial_status: "paid",
    updated_at: "2024-04-12T06:18:49-04:00",
    customer: { id: Number(TOKEN.n2), email: TOKEN.email, first_name: TOKEN.first, last_name: TOKEN.last },
  }),
  paddle: (eventType) => ({
    event_id: `evt_${E}`,
    event_type: eventType,
    occurred_at: "2024-04-12T10:18:49.621022Z",
    data: { id: `sub_${C}`, status: "active", customer_id: `ctm_${C}`, currency_code: "USD" },
  }),
  slack: (kind) => ({
    team_id: "T061EG9R6",
    api_app_id: "A0MDYCDME",
    event:
      kind === "message"
        ? { type: "message", channel: `C${O}`, user: `U${C}`, text: "Refund went through.", ts: "1712917129.000200" }
        : slackReaction,
    type: "event_callback",
    event_id: `Ev${E}`,
    event_time: 1712917129,
  }),
  standard: () => ({
    type: "subscription.updated",
    timestamp: "2024-04-12T10:18:49.344522Z",
    data: { id: `sub_${O}`, object: "subscription", customer_id: `cus_${C}`, email: TOKEN.email, status: "active" },
  }),
};
