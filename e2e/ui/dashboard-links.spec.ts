import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { githubIssuesOpened } from "../../test/fixtures/github";
import { shopifyOrder } from "../../test/fixtures/shopify";
import { stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signGithub, signShopify, signStripe, type Delivery } from "../../test/sign";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { signInAt } from "./helpers";

/**
 * The event and entity pages link to the object in the provider's own dashboard (lib/providers/dashboard-links.ts),
 * each link in a new tab that cannot reach back (noopener noreferrer).
 */
const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const stripeEvent = `evt_${tag}_dash`;
const subscriptionId = `sub_1Dash${tag}`;
const customerId = `cus_Dash${tag}`;
const orderId = 7_000_000_000_000 + Math.floor(Math.random() * 1e9);
const githubDelivery = randomUUID();
const repo = `octo-${tag}/ledger-app`;

async function deliver(request: APIRequestContext, slug: string, d: Delivery) {
  expect((await request.post(`/api/webhooks/${slug}`, { headers: d.headers, data: d.body })).status()).toBe(200);
}

async function settled(eventId: string) {
  await expect
    .poll(async () => (await sql`select status from webhook_event where event_id = ${eventId}`)[0]?.status, {
      timeout: 30_000,
    })
    .toBe("settled");
}

test.beforeAll(async ({ request }) => {
  const sub = stripeSubscriptionEvent({ eventId: stripeEvent, subscriptionId, customerId });
  await deliver(request, "stripe", signStripe(JSON.stringify(sub), "whsec_e2e_stripe"));
  await deliver(
    request,
    "shopify",
    signShopify(JSON.stringify(shopifyOrder({ id: orderId })), "e2e-shopify", { webhookId: `wh-${tag}` }),
  );
  const issue = githubIssuesOpened({ repository: { fullName: repo } });
  await deliver(request, "github", await signGithub(JSON.stringify(issue), "e2e-github", { delivery: githubDelivery }));
  await settled(stripeEvent);
});
test.afterAll(async () => sql.end());

const dashboard = (page: Page) => page.locator("[data-dashboard-links]");

async function expectOutLink(page: Page, name: string, href: string) {
  const link = dashboard(page).getByRole("link", { name });
  await expect(link).toHaveAttribute("href", href);
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("rel", "noopener noreferrer");
}

test("[ui] a Stripe event and its entity link to the subscription and customer in Stripe's test-mode dashboard", async ({
  page,
}) => {
  await signInAt(page, `/events/stripe/${stripeEvent}`, E2E.admin.email, E2E.admin.password);
  await expectOutLink(
    page,
    `Subscription ${subscriptionId} in Stripe`,
    `https://dashboard.stripe.com/test/subscriptions/${subscriptionId}`,
  );
  await expectOutLink(
    page,
    `Customer ${customerId} in Stripe`,
    `https://dashboard.stripe.com/test/customers/${customerId}`,
  );
  await page.goto(`/entities/stripe/subscription/${subscriptionId}`);
  await expectOutLink(
    page,
    `Subscription ${subscriptionId} in Stripe`,
    `https://dashboard.stripe.com/test/subscriptions/${subscriptionId}`,
  );
});

test("[ui] a Shopify order links into its store's admin; a GitHub event to its repository", async ({ page }) => {
  const shopifyEvent = (
    await sql`select event_id from webhook_event where source = 'shopify' and entity_id = ${String(orderId)}`
  )[0]?.event_id as string;
  expect(shopifyEvent).toBeTruthy();
  await signInAt(page, `/events/shopify/${encodeURIComponent(shopifyEvent)}`, E2E.admin.email, E2E.admin.password);
  const admin = `https://admin.shopify.com/store/ledger-test/orders/${orderId}`;
  await expectOutLink(page, `Order ${orderId} in Shopify admin`, admin);
  await page.goto(`/entities/shopify/order/${orderId}`);
  await expectOutLink(page, `Order ${orderId} in Shopify admin`, admin);
  await page.goto(`/events/github/${githubDelivery}`);
  await expectOutLink(page, `Repository ${repo} on GitHub`, `https://github.com/${repo}`);
});
