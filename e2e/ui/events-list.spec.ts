import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signStripe } from "../../test/sign";
import { e2eSql, settledCount } from "../db";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";

const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 8);
// Three customers sharing a prefix, and one that only starts the same way as a longer id.
const prefix = `cus_Pre${tag}`;
const customers = [`${prefix}01`, `${prefix}02`, `${prefix}03`];
const email = `Prefix.${tag}@Example.com`;

async function deliver(page: Page, event: object) {
  const d = signStripe(JSON.stringify(event), "whsec_e2e_stripe");
  expect((await page.request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body })).status()).toBe(200);
}

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  for (const [i, customerId] of customers.entries())
    await deliver(
      page,
      stripeInvoicePaidEvent({
        eventId: `evt_${tag}_p${i}`,
        customerId,
        customerEmail: i === 0 ? email : `other${i}-${tag}@example.com`,
        invoiceId: `in_1Pre${tag}${i}`,
      }),
    );
  await page.close();
});

test.afterAll(async () => {
  await sql.end();
});

test("[ui] a prefix of a customer id finds every customer it starts, and each row says which field matched", async ({
  page,
}) => {
  await signInAt(page, "/events", E2E.admin.email, E2E.admin.password);
  await page.getByLabel("Search", { exact: true }).fill(prefix);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`/events\\?q=${prefix}$`));
  const rows = page.locator("tbody tr[data-event-id]");
  await expect(rows).toHaveCount(3);
  for (const [i, c] of customers.entries()) {
    const row = page.locator(`tr[data-event-id="evt_${tag}_p${i}"]`);
    await expect(row.locator("[data-match-field]")).toContainText(c);
  }
  await shot(page, "events-prefix-search");
});

test("[ui] an email prefix finds its event whatever the case typed", async ({ page }) => {
  await signInAt(
    page,
    `/events?q=${encodeURIComponent(email.slice(0, 12).toUpperCase())}`,
    E2E.admin.email,
    E2E.admin.password,
  );
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(1);
  await expect(page.locator(`tr[data-event-id="evt_${tag}_p0"] [data-match-field]`)).toContainText("email");
});

test("[ui] filters leave a clean URL: empty fields add no parameters, Reset clears them", async ({ page }) => {
  await signInAt(page, "/events", E2E.admin.email, E2E.admin.password);
  await page.getByLabel("Status").selectOption("settled");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/\/events\?status=settled$/);
  await page.getByRole("button", { name: "Reset" }).click();
  await expect(page).toHaveURL(/\/events$/);
});

test("[ui] the filter's times are typed in UTC on a 24-hour clock", async ({ page }) => {
  await signInAt(page, "/events", E2E.admin.email, E2E.admin.password);
  await expect(page.getByLabel("From (UTC, 24 h)")).toHaveAttribute("placeholder", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  await page.getByLabel("From (UTC, 24 h)").fill("2099-01-01 18:30");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/\?from=2099-01-01(\+|%20)18(:|%3A)30$/);
  await expect(page.getByText("No events match this view.")).toBeVisible();
  await expect(page.getByLabel("From (UTC, 24 h)")).toHaveValue("2099-01-01 18:30");
});

test("[ui] j and k move through the rows, Enter opens one, / focuses the search", async ({ page }) => {
  await signInAt(page, `/events?q=${prefix}`, E2E.admin.email, E2E.admin.password);
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(3);
  await page.locator("h1").click();
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  const selected = page.locator('tbody tr[data-state="selected"]');
  await expect(selected).toHaveCount(1);
  await expect(selected).toHaveAttribute("data-event-id", `evt_${tag}_p1`);
  await page.keyboard.press("k");
  await expect(selected).toHaveAttribute("data-event-id", `evt_${tag}_p2`);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/events/stripe/evt_${tag}_p2$`));
  await page.goBack();
  await page.locator("h1").click();
  await page.keyboard.press("/");
  await expect(page.getByLabel("Search", { exact: true })).toBeFocused();
});

test("[ui] a new event matching the view is announced instead of moving the rows", async ({ page }) => {
  await signInAt(page, `/events?q=${prefix}`, E2E.admin.email, E2E.admin.password);
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(3);
  await deliver(
    page,
    stripeInvoicePaidEvent({ eventId: `evt_${tag}_late`, customerId: `${prefix}04`, invoiceId: `in_1PreL${tag}` }),
  );
  const notice = page.getByRole("button", { name: /1 new event: show/ });
  await expect(notice).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(3);
  await notice.click();
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(4);
});

test("[ui] a stale event reads stale in the list and its applied neighbour reads applied", async ({ page }) => {
  const subscriptionId = `sub_1Pre${tag}`;
  const customerId = `${prefix}09`;
  await deliver(
    page,
    stripeSubscriptionEvent({
      eventId: `evt_${tag}_new`,
      created: 2_000_000,
      status: "active",
      subscriptionId,
      customerId,
    }),
  );
  // A 200 means claimed, not applied: had the older event reached the worker first, both would rightly read applied.
  await expect.poll(() => settledCount(sql, [`evt_${tag}_new`]), { timeout: 30_000 }).toBe(1);
  await deliver(
    page,
    stripeSubscriptionEvent({
      eventId: `evt_${tag}_old`,
      created: 1_000_000,
      status: "past_due",
      subscriptionId,
      customerId,
    }),
  );
  await expect.poll(() => settledCount(sql, [`evt_${tag}_new`, `evt_${tag}_old`]), { timeout: 30_000 }).toBe(2);
  await signInAt(page, `/events?q=${customerId}`, E2E.admin.email, E2E.admin.password);
  await expect(page.locator(`tr[data-event-id="evt_${tag}_old"]`)).toContainText("stale");
  await expect(page.locator(`tr[data-event-id="evt_${tag}_new"]`)).toContainText("applied");
});

test("[ui] a view is saved in this browser and opens again from the Views menu", async ({ page }) => {
  await signInAt(page, `/events?q=${prefix}&status=settled`, E2E.admin.email, E2E.admin.password);
  page.once("dialog", (d) => void d.accept("My prefix view"));
  await page.getByRole("button", { name: "Views" }).click();
  await page.getByRole("menuitem", { name: "Save this view…" }).click();
  await page.goto("/events");
  await page.getByRole("button", { name: "Views" }).click();
  await page.getByRole("menuitem", { name: /My prefix view/ }).click();
  await expect(page).toHaveURL(new RegExp(`/events\\?q=${prefix}&status=settled$`));
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue(prefix);
});
