import { githubIssuesOpened } from "@/lib/samples/github";
import { paddleSubscriptionEvent } from "@/lib/samples/paddle";
import { shopifyOrder } from "@/lib/samples/shopify";
import { slackEventCallback } from "@/lib/samples/slack";
import { standardEvent } from "@/lib/samples/standard";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/lib/samples/stripe";
import type { LegacyKind } from "@/lib/sources/declared";

export interface DemoDelivery {
  source: LegacyKind;
  body: string;
  /** Provider id carried in a header (GitHub, Shopify, Standard Webhooks); a retry reuses it. */
  id?: string;
  headers?: Record<string, string>;
  note: string;
}

const pad = (n: number, width = 6) => String(n).padStart(width, "0");

/**
 * A morning of realistic traffic: subscriptions created and updated (some delivered out of order),
 * provider retries (duplicates), each customer's invoice paid with its own charge (one delivered twice),
 * two events no handler can read (they end dead), an attacker-shaped payload, and a few events from
 * every other provider.
 */
export function demoTraffic(now = Math.floor(Date.now() / 1000)): DemoDelivery[] {
  const out: DemoDelivery[] = [];
  const add = (d: DemoDelivery, copies = 1) => {
    for (let i = 0; i < copies; i++) out.push(d);
  };
  const json = (v: unknown) => JSON.stringify(v);

  for (let c = 1; c <= 6; c++) {
    const customerId = `cus_Demo${pad(c)}AbC`;
    const subscriptionId = `sub_1Demo${pad(c)}XyZ`;
    const invoiceId = `in_1Demo${pad(c)}1`;
    const t0 = now - 3600 + c * 60;
    // One subscription, one billing month from its start: every event about it says the same period.
    const subscription = {
      subscriptionId,
      customerId,
      periodStart: t0,
      latestInvoiceId: invoiceId,
      paymentMethodId: `pm_1Demo${pad(c)}Card`,
      itemId: `si_Demo${pad(c)}Item`,
    };
    const created = json(
      stripeSubscriptionEvent({
        ...subscription,
        eventId: `evt_1DemoSubC${pad(c)}`,
        type: "customer.subscription.created",
        created: t0,
        status: "trialing",
        priceId: "price_1DemoStarter01",
      }),
    );
    const upgraded = json(
      stripeSubscriptionEvent({
        ...subscription,
        eventId: `evt_1DemoSubU${pad(c)}`,
        created: t0 + 600,
        status: "active",
        priceId: "price_1DemoPro00001",
      }),
    );
    const pastDue = json(
      stripeSubscriptionEvent({
        ...subscription,
        eventId: `evt_1DemoSubP${pad(c)}`,
        created: t0 + 300,
        status: "past_due",
        priceId: "price_1DemoStarter01",
      }),
    );
    add({ source: "stripe", body: created, note: "subscription created" });
    if (c % 2 === 0) {
      // Out of order: the newer state arrives first; the older one must be recorded stale.
      add({ source: "stripe", body: upgraded, note: "newer update first" });
      add({ source: "stripe", body: pastDue, note: "older update late (stale)" });
    } else {
      add({ source: "stripe", body: pastDue, note: "update" });
      add({ source: "stripe", body: upgraded, note: "update" }, c === 3 ? 3 : 1); // c=3: retried twice
    }
    // The month's invoice, paid once with its own charge; customer 2's payment is delivered twice.
    const paid = stripeInvoicePaidEvent({
      eventId: `evt_1DemoInv${pad(c)}1`,
      created: t0 + 900,
      invoiceId,
      customerId,
      customerEmail: `customer${c}@example.com`,
      subscriptionId,
      priceId: "price_1DemoPro00001",
      amount: 1900 + c * 100,
      chargeId: `ch_3Demo${pad(c)}Chg`,
      paymentIntentId: `pi_3Demo${pad(c)}Pay`,
      number: `D3M0${pad(c, 4)}-0001`,
      itemId: subscription.itemId,
      period: { start: t0, end: t0 + 30 * 86_400 },
    });
    add(
      { source: "stripe", body: json(paid), note: c === 2 ? "invoice paid (delivered twice)" : "invoice paid" },
      c === 2 ? 2 : 1,
    );
  }
  {
    const broken = stripeSubscriptionEvent({
      eventId: "evt_1DemoBrokenItems",
      created: now - 120,
      subscriptionId: "sub_1DemoBroken01",
      customerId: "cus_Demo000007AbC",
    });
    (broken.data.object as { items: unknown }).items = { object: "list", data: [] };
    add({ source: "stripe", body: json(broken), note: "no items: fails until dead" });
    const hostile = stripeSubscriptionEvent({
      eventId: "evt_1DemoHostile001",
      created: now - 60,
      subscriptionId: "sub_1DemoHostile1",
      customerId: "cus_Demo000008AbC",
    });
    (hostile.data.object as Record<string, unknown>).description =
      '<script>alert("xss")</script><a href="javascript:alert(1)">click</a>';
    add({ source: "stripe", body: json(hostile), note: "attacker-shaped text, must render as text" });
  }
  for (let o = 1; o <= 3; o++) {
    const id = 5745183776800 + o;
    add({
      source: "shopify",
      body: json(
        shopifyOrder({
          id,
          updatedAt: new Date((now - 1800 + o * 60) * 1000).toISOString(),
          financialStatus: "pending",
        }),
      ),
      id: `demo-shop-${o}-a`,
      headers: { "x-shopify-topic": "orders/create" },
      note: "order created",
    });
    add(
      {
        source: "shopify",
        body: json(
          shopifyOrder({ id, updatedAt: new Date((now - 900 + o * 60) * 1000).toISOString(), financialStatus: "paid" }),
        ),
        id: `demo-shop-${o}-b`,
        headers: { "x-shopify-topic": "orders/updated" },
        note: "order paid",
      },
      o === 2 ? 2 : 1,
    );
  }
  {
    // An update without updated_at cannot be ordered against the others: it fails until dead.
    const undated = shopifyOrder({ id: 5745183776809, financialStatus: "refunded" }) as Record<string, unknown>;
    delete undated.updated_at;
    add({
      source: "shopify",
      body: json(undated),
      id: "demo-shop-9-undated",
      headers: { "x-shopify-topic": "orders/updated" },
      note: "no updated_at: fails until dead",
    });
  }
  for (let p = 1; p <= 2; p++) {
    const subscriptionId = `sub_01hdemo${pad(p, 4)}paddle`;
    const at = (micros: number) => `${new Date((now - 600) * 1000).toISOString().slice(0, 19)}.${pad(micros)}Z`;
    add({
      source: "paddle",
      body: json(
        paddleSubscriptionEvent({ eventId: `evt_01hdemo${p}b`, occurredAt: at(2), subscriptionId, status: "active" }),
      ),
      note: "newer by 1 µs",
    });
    add({
      source: "paddle",
      body: json(
        paddleSubscriptionEvent({ eventId: `evt_01hdemo${p}a`, occurredAt: at(1), subscriptionId, status: "past_due" }),
      ),
      note: "older by 1 µs (stale)",
    });
  }
  add(
    {
      source: "github",
      body: json(githubIssuesOpened({ number: 42, title: "Refund webhook fired twice" })),
      id: "5f2c1d10-demo-4a1b-9c77-000000000042",
      headers: { "x-github-event": "issues" },
      note: "issue opened",
    },
    2,
  );
  add({
    source: "slack",
    body: json(slackEventCallback({ eventId: "Ev0DEMO00001", eventTime: now - 300 })),
    note: "message",
  });
  add({
    source: "standard",
    body: json(standardEvent({ type: "invoice.paid", timestamp: new Date((now - 200) * 1000).toISOString() })),
    id: "msg_demo_standard_1",
    note: "standard webhook",
  });
  return out;
}
