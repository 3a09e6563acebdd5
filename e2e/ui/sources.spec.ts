import { createHmac, randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { E2E } from "../env";
import { addUser, shot, signInAt } from "./helpers";

const tag = randomUUID().replaceAll("-", "").slice(0, 8);
let n = 0;

/** A Stripe delivery signed here, as Stripe does: t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<body>">. */
function stripeDelivery(secret: string) {
  const ts = Math.floor(Date.now() / 1000);
  const id = `evt_src${tag}_${++n}`;
  const body = JSON.stringify({
    id,
    object: "event",
    type: "customer.created",
    created: ts,
    livemode: false,
    data: { object: { id: `cus_src${tag}${n}`, object: "customer" } },
  });
  const v1 = createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex");
  return { id, body, headers: { "content-type": "application/json", "stripe-signature": `t=${ts},v1=${v1}` } };
}

async function post(request: APIRequestContext, slug: string, secret: string): Promise<number> {
  const d = stripeDelivery(secret);
  return (await request.post(`/api/webhooks/${slug}`, { headers: d.headers, data: d.body })).status();
}

async function adminPage(page: Page, path = "/sources") {
  await signInAt(page, path, E2E.admin.email, E2E.admin.password);
}

/** Adds a Stripe source through the form; returns its one-time secret and fingerprint. */
async function addStripeSource(page: Page, slug: string) {
  await page.goto("/sources/new");
  await page.getByLabel("Slug").fill(slug);
  await page.getByLabel("Name").fill(`Stripe ${slug}`);
  await page.getByLabel("Provider kind").selectOption("stripe");
  await page.getByRole("button", { name: "Add source" }).click();
  const issued = page.getByTestId("issued");
  await expect(issued).toBeVisible();
  const secret = (await issued.getByTestId("issued-secret").textContent()) ?? "";
  const fingerprint = (await issued.getByTestId("issued-fingerprint").textContent()) ?? "";
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  return { secret, fingerprint };
}

async function noSideScroll(page: Page) {
  const { scroll, inner, wide } = await page.evaluate(() => {
    // The elements that reach past the viewport, innermost first: what to fix when the page scrolls sideways.
    const wide = [...document.querySelectorAll("body *")]
      .filter(
        (el) =>
          el.getBoundingClientRect().right > window.innerWidth &&
          ![...el.children].some((c) => c.getBoundingClientRect().right > window.innerWidth),
      )
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? "").slice(0, 30)}"`);
    return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, wide };
  });
  expect(scroll, `the page must not scroll sideways; too wide: ${wide.join(", ")}`).toBeLessThanOrEqual(inner);
}

test("[sources] an admin adds a Stripe source, sees its secret once and its URL, and a delivery signed with it answers 200", async ({
  page,
  request,
}) => {
  const slug = `shop-${tag}`;
  await adminPage(page);
  await page.getByRole("link", { name: "Add a source" }).click();
  await expect(page).toHaveURL(/\/sources\/new$/);

  // A wrong slug: the error is shown inline and what was typed stays.
  await page.getByLabel("Slug").fill("Not a slug!");
  await page.getByLabel("Name").fill(`Stripe ${slug}`);
  await page.getByLabel("Provider kind").selectOption("stripe");
  await page.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByRole("form", { name: "Add a source" }).getByRole("alert")).toContainText(
    "lowercase letters, digits and dashes",
  );
  await expect(page.getByLabel("Name")).toHaveValue(`Stripe ${slug}`);
  await expect(page.getByLabel("Slug")).toHaveValue("Not a slug!");

  await page.getByLabel("Slug").fill(slug);
  await page.getByRole("button", { name: "Add source" }).click();
  const issued = page.getByTestId("issued");
  await expect(issued).toContainText("it will not be shown again");
  const secret = (await issued.getByTestId("issued-secret").textContent()) ?? "";
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  await expect(issued.getByTestId("webhook-url")).toHaveText(`${E2E.baseURL}/api/webhooks/${slug}`);
  await expect(issued.getByRole("button", { name: "Copy secret" })).toBeVisible();
  await shot(page, "sources-added");

  expect(await post(request, slug, secret)).toBe(200);

  // Afterwards only the fingerprint: neither the list nor the source's page carries the secret.
  const fingerprint = (await issued.getByTestId("issued-fingerprint").textContent()) ?? "";
  await page.goto("/sources");
  const card = page.locator(`article[data-source="${slug}"]`);
  await expect(card).toContainText("Stripe");
  await expect(card.locator("[data-state]")).toHaveText("active");
  await expect(card.getByTestId("webhook-url")).toHaveText(`${E2E.baseURL}/api/webhooks/${slug}`);
  await expect(card.locator('[data-count="deliveries"]')).toHaveText("1 delivery");
  await expect(card).toContainText("UTC");
  expect(await page.content()).not.toContain(secret);
  await card.getByRole("link", { name: `Stripe ${slug}` }).click();
  await expect(page).toHaveURL(new RegExp(`/sources/${slug}$`));
  await expect(page.locator(`tr[data-fingerprint="${fingerprint}"]`)).toContainText("active");
  expect(await page.content()).not.toContain(secret);
});

test("[sources] rotating keeps the old secret until it is expired, and 'stop verifying now' retires it at once", async ({
  page,
  request,
}) => {
  const slug = `rot-${tag}`;
  await adminPage(page);
  const first = await addStripeSource(page, slug);
  await page.goto(`/sources/${slug}`);

  // Rotate, keeping the old one: both verify.
  await page.getByRole("button", { name: "Rotate secret…" }).click();
  await page.getByLabel("keep verifying").check();
  await page.getByRole("button", { name: "Add the new secret" }).click();
  const second = (await page.getByTestId("issued-secret").textContent()) ?? "";
  expect(second).toMatch(/^[0-9a-f]{64}$/);
  expect(second).not.toBe(first.secret);
  expect(await post(request, slug, first.secret)).toBe(200);
  expect(await post(request, slug, second)).toBe(200);
  await page.getByRole("button", { name: "Done" }).click();

  // Expire the first now (confirmed): it is refused, the second still verifies.
  const row = page.locator(`tr[data-fingerprint="${first.fingerprint}"]`);
  await row.getByRole("button", { name: "Expire now" }).click();
  await expect(row.getByRole("alertdialog")).toContainText("refused (401)");
  await row.getByRole("button", { name: "Expire", exact: true }).click();
  await expect(row).toHaveAttribute("data-active", "false");
  await expect(row).toContainText("expired");
  expect(await post(request, slug, first.secret)).toBe(401);
  expect(await post(request, slug, second)).toBe(200);

  // Rotate again, the ones there now stopping at once.
  await page.getByRole("button", { name: "Rotate secret…" }).click();
  await expect(page.getByLabel("Old secrets stop verifying at (UTC)")).toHaveValue(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
  await page.getByLabel("stop verifying now").check();
  await page.getByRole("button", { name: "Add the new secret" }).click();
  const third = (await page.getByTestId("issued-secret").textContent()) ?? "";
  expect(third).toMatch(/^[0-9a-f]{64}$/);
  expect(await post(request, slug, second)).toBe(401);
  expect(await post(request, slug, third)).toBe(200);
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.locator('tr[data-active="true"]')).toHaveCount(1);
  await expect(page.locator('tr[data-active="false"]')).toHaveCount(2);
});

test("[sources] a bad-signature delivery shows on the source's page as a refusal, with its count", async ({
  page,
  request,
}) => {
  const slug = `ref-${tag}`;
  await adminPage(page);
  const { secret } = await addStripeSource(page, slug);
  expect(await post(request, slug, secret)).toBe(200);
  expect(await post(request, slug, "whsec_not_the_secret")).toBe(401);

  // Refusals are written behind the answer, about once a second.
  await page.goto(`/sources/${slug}`);
  const refusal = page.locator('tr[data-reason="bad_signature"]');
  await expect(async () => {
    await page.reload();
    await expect(refusal).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 30_000 });
  await expect(refusal).toContainText("bad signature");
  await expect(refusal.locator('[data-count="count"]')).toHaveText("1");
  await expect(refusal).toContainText("401");
  await expect(refusal).toContainText("stripe-signature");
  await page.goto("/sources");
  await expect(page.locator(`article[data-source="${slug}"] [data-count="refused"]`)).toContainText(
    "bad signature × 1",
  );

  for (const [width, scheme] of [
    [1440, "light"],
    [390, "light"],
    [1440, "dark"],
    [390, "dark"],
  ] as const) {
    const suffix = scheme === "dark" ? "-dark" : "";
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/sources");
    await noSideScroll(page);
    await shot(page, `sources-${width}${suffix}`);
    await page.goto(`/sources/${slug}`);
    await noSideScroll(page);
    // The refusal's hidden columns are still on the row, under its reason.
    await expect(refusal.getByText("stripe-signature").filter({ visible: true })).toHaveCount(1);
    await shot(page, `source-detail-${width}${suffix}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/sources/new");
  await page.getByLabel("Provider kind").selectOption("generic");
  await expect(page.getByLabel("Options (JSON)")).toHaveValue(/"signatureHeader"/);
  await noSideScroll(page);
  await shot(page, "sources-new-390");
});

test("[sources] pausing answers 503 and disabling 404, each confirmed; resuming receives again", async ({
  page,
  request,
}) => {
  const slug = `st-${tag}`;
  await adminPage(page);
  const { secret } = await addStripeSource(page, slug);
  await page.goto(`/sources/${slug}`);
  const badge = page.getByTestId("source-state");

  await page.getByRole("button", { name: "Pause…" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("answers 503");
  await page.setViewportSize({ width: 390, height: 900 });
  await noSideScroll(page);
  await shot(page, "sources-confirm-390");
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByRole("alertdialog").getByRole("button", { name: "Pause" }).click();
  await expect(badge).toHaveText("paused");
  expect(await post(request, slug, secret)).toBe(503);

  await page.getByRole("button", { name: "Resume…" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Resume" }).click();
  await expect(badge).toHaveText("active");
  expect(await post(request, slug, secret)).toBe(200);

  await page.getByRole("button", { name: "Disable…" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("answers 404");
  await page.getByRole("alertdialog").getByRole("button", { name: "Disable" }).click();
  await expect(badge).toHaveText("disabled");
  expect(await post(request, slug, secret)).toBe(404);
  await page.getByRole("button", { name: "Enable…" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Enable" }).click();
  await expect(badge).toHaveText("active");
  expect(await post(request, slug, secret)).toBe(200);
});

test("[sources] 'Send a test event' shows the receiver's 200 and links to the stored event", async ({ page }) => {
  const slug = `tst-${tag}`;
  await adminPage(page);
  await addStripeSource(page, slug);
  await page.goto(`/sources/${slug}`);
  await page.getByRole("button", { name: "Send a test event" }).click();
  const result = page.getByTestId("test-result");
  await expect(result.locator("[data-status]")).toHaveText("200");
  await expect(result.locator("pre")).not.toBeEmpty();
  await page.getByRole("button", { name: "Rotate secret…" }).click();
  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await noSideScroll(page);
    await shot(page, `sources-test-rotate-${width}`);
  }
  const link = result.getByRole("link", { name: /Open event/ });
  const href = (await link.getAttribute("href")) ?? "";
  expect(href).toMatch(new RegExp(`^/events/${slug}/evt_test_`));
  await link.click();
  await expect(page).toHaveURL(new RegExp(`${href}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(decodeURIComponent(href.split("/").pop()!));
});

test("[sources] the declared stripe source is listed read-only with its origin, with no management controls", async ({
  page,
}) => {
  await adminPage(page);
  const card = page.locator('article[data-source="stripe"]');
  await expect(card.getByTestId("origin")).toHaveText(
    "Read-only: declared by the environment (STRIPE_WEBHOOK_SECRET).",
  );
  await card.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/sources\/stripe$/);
  await expect(page.getByTestId("origin")).toContainText("declared by the environment (STRIPE_WEBHOOK_SECRET)");
  // Its two secrets from the environment, by fingerprint; nothing to rotate, expire, pause or disable.
  await expect(page.locator("tr[data-fingerprint]")).toHaveCount(2);
  for (const name of ["Rotate secret…", "Expire now", "Pause…", "Disable…"])
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  for (const secret of E2E.secrets.STRIPE_WEBHOOK_SECRET.split(",")) expect(await page.content()).not.toContain(secret);
  await expect(page.getByRole("button", { name: "Send a test event" })).toBeVisible();
});

test("[sources] a support user reads the sources but gets no controls; an unknown slug is not found", async ({
  browser,
  page,
}) => {
  await adminPage(page, "/users");
  const email = `support-src-${tag}@e2e.example`;
  await addUser(page, email, "support", "support password 1234");
  const support = await browser.newPage();
  await signInAt(support, "/sources", email, "support password 1234");
  await expect(support.getByRole("heading", { name: "Sources" })).toBeVisible();
  await expect(support.getByRole("link", { name: "Add a source" })).toHaveCount(0);
  await support.goto("/sources/stripe");
  await expect(support.getByRole("button", { name: "Send a test event" })).toHaveCount(0);
  await expect(support.getByRole("button", { name: "Rotate secret…" })).toHaveCount(0);
  expect((await support.goto("/sources/new"))?.status()).toBe(403);
  expect((await support.goto(`/sources/no-such-${tag}`))?.status()).toBe(404);
  await support.close();
});
