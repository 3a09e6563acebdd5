import { describe, expect, it } from "vitest";
import { dashboardLinks, isPaddleSandbox, type DashboardInput } from "@/lib/providers/dashboard-links";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { paddleSubscriptionEvent } from "@/test/fixtures/paddle";
import { shopifyOrder } from "@/test/fixtures/shopify";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";

const links = (input: Partial<DashboardInput> & Pick<DashboardInput, "provider">) =>
  dashboardLinks({ payload: {}, headers: {}, ...input });
const hrefs = (input: Partial<DashboardInput> & Pick<DashboardInput, "provider">) => links(input).map((l) => l.href);

describe("links to the provider's dashboard", () => {
  it("[dashboard] a Stripe subscription links to it and its customer, under /test for a test-mode event", () => {
    const payload = stripeSubscriptionEvent({ subscriptionId: "sub_1Abc", customerId: "cus_Xyz" });
    expect(payload.livemode).toBe(false);
    expect(links({ provider: "stripe", payload, entity: { type: "subscription", id: "sub_1Abc" } })).toEqual([
      { label: "Subscription sub_1Abc in Stripe", href: "https://dashboard.stripe.com/test/subscriptions/sub_1Abc" },
      { label: "Customer cus_Xyz in Stripe", href: "https://dashboard.stripe.com/test/customers/cus_Xyz" },
    ]);
    expect(hrefs({ provider: "stripe", payload: { ...payload, livemode: true } })).toEqual([
      "https://dashboard.stripe.com/subscriptions/sub_1Abc",
      "https://dashboard.stripe.com/customers/cus_Xyz",
    ]);
    // A payload that does not say which mode is taken as live.
    const { livemode: _, ...unsaid } = payload;
    expect(hrefs({ provider: "stripe", payload: unsaid })[0]).toBe(
      "https://dashboard.stripe.com/subscriptions/sub_1Abc",
    );
  });

  it("[dashboard] a Stripe invoice links to the invoice, its subscription and customer; an entity page's own object first", () => {
    const payload = stripeInvoicePaidEvent({ customerId: "cus_Inv1", invoiceId: "in_1Inv" });
    const sub = payload.data.object.subscription;
    expect(hrefs({ provider: "stripe", payload })).toEqual([
      "https://dashboard.stripe.com/test/invoices/in_1Inv",
      `https://dashboard.stripe.com/test/subscriptions/${sub}`,
      "https://dashboard.stripe.com/test/customers/cus_Inv1",
    ]);
    expect(hrefs({ provider: "stripe", payload, entity: { type: "customer", id: "cus_Inv1" } })).toEqual([
      "https://dashboard.stripe.com/test/customers/cus_Inv1",
      "https://dashboard.stripe.com/test/invoices/in_1Inv",
      `https://dashboard.stripe.com/test/subscriptions/${sub}`,
    ]);
  });

  it("[dashboard] an id without its object's shape makes no link (ids come from outside)", () => {
    for (const id of ["cus_../../settings", "cus_a/b", "cus_x?y=1", "javascript:alert(1)", "cus_", "sub_1Abc", ""]) {
      const payload = { livemode: true, data: { object: { object: "customer", id } } };
      expect(hrefs({ provider: "stripe", payload }), id).toEqual([]);
    }
    expect(hrefs({ provider: "stripe", payload: { data: { object: { object: "customer", id: ["cus_1"] } } } })).toEqual(
      [],
    );
    expect(hrefs({ provider: "stripe", payload: "not an object" })).toEqual([]);
  });

  it("[dashboard] a Shopify order links into its store's admin, the store read from the shop-domain header", () => {
    const order = shopifyOrder({ id: 5745183776802 });
    const entity = { type: "order", id: "5745183776802" };
    expect(
      links({
        provider: "shopify",
        payload: order,
        entity,
        headers: { "x-shopify-shop-domain": "ledger-test.myshopify.com" },
      }),
    ).toEqual([
      {
        label: "Order 5745183776802 in Shopify admin",
        href: "https://admin.shopify.com/store/ledger-test/orders/5745183776802",
      },
    ]);
    // The newer header family without X-, any letter case.
    expect(
      hrefs({ provider: "shopify", entity, headers: { "Shopify-Shop-Domain": "Ledger-Test.myshopify.com" } }),
    ).toEqual(["https://admin.shopify.com/store/ledger-test/orders/5745183776802"]);
    for (const domain of [
      "evil.example",
      "a.myshopify.com.evil.example",
      "../x.myshopify.com",
      "",
      "a b.myshopify.com",
    ])
      expect(hrefs({ provider: "shopify", entity, headers: { "x-shopify-shop-domain": domain } }), domain).toEqual([]);
    const headers = { "x-shopify-shop-domain": "ledger-test.myshopify.com" };
    expect(hrefs({ provider: "shopify", entity: { type: "order", id: "12/../3" }, headers })).toEqual([]);
    expect(hrefs({ provider: "shopify", entity: { type: "product", id: "123" }, headers })).toEqual([]);
  });

  it("[dashboard] a Paddle subscription links to the vendor dashboard, the sandbox one on a sandbox deploy", () => {
    const payload = paddleSubscriptionEvent({ subscriptionId: "sub_01hv8x29kz0t586xy6zn1a62ny" });
    const entity = { type: "subscription", id: "sub_01hv8x29kz0t586xy6zn1a62ny" };
    expect(links({ provider: "paddle", payload, entity })).toEqual([
      {
        label: "Subscription sub_01hv8x29kz0t586xy6zn1a62ny in Paddle",
        href: "https://vendors.paddle.com/subscriptions-v2/sub_01hv8x29kz0t586xy6zn1a62ny",
      },
    ]);
    expect(hrefs({ provider: "paddle", payload, entity, paddleSandbox: true })).toEqual([
      "https://sandbox-vendors.paddle.com/subscriptions-v2/sub_01hv8x29kz0t586xy6zn1a62ny",
    ]);
    // A transaction names its subscription.
    expect(hrefs({ provider: "paddle", payload: { data: { id: "txn_01", subscription_id: "sub_01abc" } } })).toEqual([
      "https://vendors.paddle.com/subscriptions-v2/sub_01abc",
    ]);
    expect(hrefs({ provider: "paddle", entity: { type: "subscription", id: "sub_01/../x" } })).toEqual([]);
    expect(isPaddleSandbox("https://sandbox-api.paddle.com")).toBe(true);
    expect(isPaddleSandbox("https://api.paddle.com")).toBe(false);
    expect(isPaddleSandbox("not a url")).toBe(false);
  });

  it("[dashboard] a GitHub event links to its repository, only an https github.com (or ghe.com) address", () => {
    const payload = githubIssuesOpened({ repository: { fullName: "Codertocat/Hello-World" } });
    expect(links({ provider: "github", payload })).toEqual([
      { label: "Repository Codertocat/Hello-World on GitHub", href: "https://github.com/Codertocat/Hello-World" },
    ]);
    const at = (html_url: unknown) => hrefs({ provider: "github", payload: { repository: { html_url } } });
    expect(at("https://octo.ghe.com/team/app")).toEqual(["https://octo.ghe.com/team/app"]);
    for (const url of [
      "http://github.com/a/b",
      "https://github.com.evil.example/a/b",
      "https://evil.example/a/b",
      "https://github.com/a",
      "https://github.com/a/b/issues",
      "https://user:pw@github.com/a/b",
      "https://github.com:8443/a/b",
      "javascript:alert(1)//github.com/a/b",
      "https://github.com/%2e%2e/b",
      42,
      undefined,
    ])
      expect(at(url), String(url)).toEqual([]);
  });

  it("[dashboard] providers without a dashboard page for an object make no link", () => {
    for (const provider of ["slack", "standard", "generic", undefined] as const)
      expect(hrefs({ provider, payload: { repository: { html_url: "https://github.com/a/b" } } })).toEqual([]);
  });
});
