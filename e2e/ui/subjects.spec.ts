import { createHash, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { shopifyOrder } from "../../test/fixtures/shopify";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signShopify, signStripe } from "../../test/sign";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { addUser, shot, signInAt } from "./helpers";

const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const support = `support-subj-${tag}@e2e.example`;
const PW = "subjects password 123";
const customerId = `cus_Subj${tag}`;
const email = `dispute-${tag}@example.com`;
const shopWebhook = randomUUID();
const XSS = `<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">${tag}`;
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

async function deliver(
  request: APIRequestContext,
  source: string,
  d: { body: string; headers: Record<string, string> },
) {
  expect((await request.post(`/api/webhooks/${source}`, { headers: d.headers, data: d.body })).status()).toBe(200);
}

test.beforeAll(async ({ browser, request }) => {
  const admin = await browser.newPage();
  await signInAt(admin, "/users", E2E.admin.email, E2E.admin.password);
  await addUser(admin, support, "support", PW);
  await admin.close();
  const stripe = (event: object) => signStripe(JSON.stringify(event), "whsec_e2e_stripe");
  await deliver(
    request,
    "stripe",
    stripe(
      stripeSubscriptionEvent({
        eventId: `evt_${tag}_sub`,
        customerId,
        subscriptionId: `sub_1Subj${tag}`,
        created: 1_712_900_000,
      }),
    ),
  );
  const invoice = stripe(
    stripeInvoicePaidEvent({
      eventId: `evt_${tag}_inv`,
      customerId,
      customerEmail: email,
      created: 1_712_950_000,
      amount: 4999,
    }),
  );
  await deliver(request, "stripe", invoice);
  await deliver(request, "stripe", invoice); // a duplicate
  const order = {
    ...shopifyOrder({ id: 5745183000000 + Number.parseInt(tag.slice(0, 6), 16), email, totalPrice: "12.34" }),
    note: XSS,
    note_attributes: [{ name: "stripe_customer", value: customerId }],
  };
  await deliver(request, "shopify", signShopify(JSON.stringify(order), "e2e-shopify", { webhookId: shopWebhook }));
  await expect
    .poll(
      async () =>
        (
          await sql`select count(*)::int as n from webhook_event where subject_ids @> ${[customerId]}::text[] and status = 'settled'`
        )[0]?.n,
      { timeout: 30_000 },
    )
    .toBe(3);
});
test.afterAll(async () => sql.end());

async function noScriptRan(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
}

async function noSidewaysScroll(page: Page) {
  const { scroll, inner, wide } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    // The innermost elements reaching past the viewport: what to fix when the page scrolls sideways.
    wide: [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .filter((el) => ![...el.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 0.5))
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`),
  }));
  expect(scroll, wide.join("\n")).toBeLessThanOrEqual(inner);
}

async function atWidths(page: Page, name: string) {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await noSidewaysScroll(page);
    await shot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("[ui] support opens a customer view from a search and sees every event across sources, with outcomes and entities", async ({
  page,
}) => {
  await signInAt(page, "/events", support, PW);
  await page.getByLabel("Search", { exact: true }).fill(customerId);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(3);
  await shot(page, "subject-events-search-link");
  await page.getByRole("link", { name: `Everything about ${customerId} →` }).click();
  await expect(page).toHaveURL(new RegExp(`/subjects/${customerId}$`));
  await expect(page.getByRole("heading", { level: 1, name: customerId })).toBeVisible();
  const events = page.locator('ol[aria-label="Events"] > li');
  await expect(events).toHaveCount(3);
  // Newest first by when each happened: the invoice (created 1712950000), the Shopify order (updated_at
  // 2024-04-12 10:18:49 UTC = 1712917129), the subscription (created 1712900000).
  await expect(events.nth(0)).toHaveAttribute("data-event-id", `evt_${tag}_inv`);
  await expect(events.nth(1)).toHaveAttribute("data-source", "shopify");
  await expect(events.nth(2)).toHaveAttribute("data-event-id", `evt_${tag}_sub`);
  const inv = page.locator(`li[data-event-id="evt_${tag}_inv"]`);
  await expect(inv).toContainText("49.99 USD");
  await expect(inv).toContainText("2 times (1 duplicate)");
  await expect(inv).toContainText("applied");
  await expect(inv.getByRole("link", { name: `customer ${customerId}` })).toBeVisible();
  await expect(events.nth(1)).toContainText("12.34 USD");
  await expect(page.locator(`[data-entity="subscription/sub_1Subj${tag}"]`)).toContainText("active");
  // The customer's total in dollars with its currency, never cents labelled as dollars.
  await expect(page.locator(`[data-entity="customer/${customerId}"]`)).toContainText("49.99 USD");
  await noScriptRan(page);
  await atWidths(page, "subject");
  await page.emulateMedia({ colorScheme: "dark" });
  await atWidths(page, "subject-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // A search for an event id is not a customer: no link.
  await page.goto(`/events?q=evt_${tag}_inv`);
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(1);
  await expect(page.getByRole("link", { name: /^Everything about / })).toHaveCount(0);

  // An email finds the same customer's invoice and order; the entity page links here too.
  await page.goto(`/events?q=${encodeURIComponent(email.toUpperCase())}`);
  await page.getByRole("link", { name: /^Everything about / }).click();
  await expect(page.getByRole("heading", { level: 1, name: email })).toBeVisible();
  await expect(page.locator('ol[aria-label="Events"] > li')).toHaveCount(2);
  await page.goto(`/entities/stripe/subscription/sub_1Subj${tag}`);
  await shot(page, "subject-entity-link");
  await page.getByRole("link", { name: `Everything about sub_1Subj${tag} →` }).click();
  await expect(page.locator(`li[data-event-id="evt_${tag}_sub"]`)).toBeVisible();
});

test("[ui] the dispute bundle downloads with each raw body exactly as stored and its SHA-256, and is audited", async ({
  page,
}) => {
  await signInAt(page, `/subjects/${customerId}`, support, PW);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download dispute bundle (JSON)" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(
    new RegExp(`^dispute-bundle-${customerId}-\\d{4}-\\d{2}-\\d{2}\\.json$`),
  );
  const doc = JSON.parse(await readFile(await download.path(), "utf8")) as {
    complete: boolean;
    events: {
      source: string;
      eventId: string;
      rawBody: string;
      bodySha256: { stored: string; recomputed: string; matches: boolean };
      verifiedAtArrival: string | null;
      signature: { kind: string; signedTimestamp: { unix: number } | null };
      deliveries: unknown[];
    }[];
  };
  expect(doc.complete).toBe(true);
  expect(doc.events).toHaveLength(3);
  const stored = await sql<{ source: string; event_id: string; raw_body: string }[]>`
    select source, event_id, raw_body from webhook_event where subject_ids @> ${[customerId]}::text[]`;
  for (const e of doc.events) {
    const row = stored.find((s) => s.source === e.source && s.event_id === e.eventId)!;
    expect(e.rawBody).toBe(row.raw_body);
    expect(sha256(e.rawBody)).toBe(e.bodySha256.recomputed);
    expect(sha256(e.rawBody)).toBe(e.bodySha256.stored);
    expect(e.bodySha256.matches).toBe(true);
    // The fingerprint of the secret that verified it at arrival (never the secret).
    expect(e.verifiedAtArrival).toMatch(/\S/);
    expect(e.verifiedAtArrival).not.toContain("whsec_");
  }
  const inv = doc.events.find((e) => e.eventId === `evt_${tag}_inv`)!;
  expect(inv.signature.kind).toBe("stripe");
  expect(inv.signature.signedTimestamp?.unix).toEqual(expect.any(Number));
  expect(inv.deliveries).toHaveLength(2);
  const text = JSON.stringify(doc);
  for (const internal of ["leaseToken", "lease_token", "leasedBy", "nextActor", "attemptsBase"])
    expect(text).not.toContain(internal);
  const audit = await sql<{ actor_email: string; detail: { format: string } }[]>`
    select actor_email, detail from audit_log where action = 'subjects.bundle' and target = ${`subject:sha256:${sha256(customerId)}`}`;
  expect(audit.map((a) => [a.actor_email, a.detail.format])).toContainEqual([support, "json"]);
});

test("[ui] the printable bundle shows the same evidence as text, with no script run, at 1440 and 390 px", async ({
  page,
}) => {
  page.on("dialog", () => {
    throw new Error("a dialog opened: payload ran as script");
  });
  await signInAt(page, `/subjects/${customerId}`, support, PW);
  await page.getByRole("link", { name: "Printable bundle" }).click();
  await expect(page.getByRole("heading", { name: `Dispute bundle: ${customerId}` })).toBeVisible();
  await expect(page.locator("section[data-bundle-event]")).toHaveCount(3);
  const shop = page.locator("section[data-bundle-event]").filter({ hasText: "shopify" }).first();
  await expect(shop.locator("pre[data-raw-body]")).toContainText("<script>window.__xss = 1</script>");
  await expect(page.locator(`section[data-event-id="evt_${tag}_inv"]`)).toContainText("(matches)");
  await expect(page.locator(`section[data-event-id="evt_${tag}_inv"]`)).toContainText("HMAC-SHA256 of `{t}.{body}`");
  await noScriptRan(page);
  await atWidths(page, "subject-print");
  await page.emulateMedia({ media: "print" });
  // The shell (sidebar, and the phone's top bar) is not printed; the bundle is, with its print button hidden.
  await expect(page.locator('nav[aria-label="Console"]')).toBeHidden();
  await expect(page.getByRole("button", { name: "Print or save as PDF" })).toBeHidden();
  await expect(page.locator("section[data-bundle-event]").first()).toBeVisible();
  await shot(page, "subject-print-media-print");
  await page.setViewportSize({ width: 390, height: 900 });
  await expect(page.getByRole("button", { name: "Open menu" })).toBeHidden();
  await page.emulateMedia({ media: "screen" });
  await expect(page.getByRole("button", { name: "Open menu" })).toBeVisible();
});

test("[ui] a customer's entity page shows its real invoice events as applied, and says why it has no version", async ({
  page,
  request,
}) => {
  const other = `cus_Ent${tag}`;
  for (const [i, amount] of [1000, 2000, 4000].entries())
    await deliver(
      request,
      "stripe",
      signStripe(
        JSON.stringify(
          stripeInvoicePaidEvent({
            eventId: `evt_${tag}_ent${i}`,
            invoiceId: `in_1Ent${tag}${i}`,
            customerId: other,
            created: 1_712_960_000 + i,
            amount,
          }),
        ),
        "whsec_e2e_stripe",
      ),
    );
  await expect
    .poll(
      async () =>
        (
          await sql`select count(*)::int as n from webhook_event where event_id like ${`evt_${tag}_ent%`} and status = 'settled'`
        )[0]?.n,
      { timeout: 30_000 },
    )
    .toBe(3);
  await signInAt(page, `/entities/stripe/customer/${other}`, support, PW);
  const rows = page.locator('ol[aria-label="Timeline"] > li');
  await expect(rows).toHaveCount(3);
  for (const i of [0, 1, 2]) {
    const row = page.locator(`li[data-event-id="evt_${tag}_ent${i}"]`);
    await expect(row).toHaveAttribute("data-outcome", "applied");
    await expect(row).toContainText("invoice.paid");
    await expect(row).toContainText("applied");
  }
  // The worker may apply them in any order; the last one applied brought the total to 70.00 USD.
  await expect(rows.filter({ hasText: /amount_paid: "\d+\.\d{2} USD" → "70\.00 USD"/ })).toHaveCount(1);
  await expect(page.getByText("no longer in the ledger")).toHaveCount(0);
  await expect(page.getByText("none applied yet")).toHaveCount(0);
  // A customer's totals move by deltas: no version, but the last applied event and when, as a date.
  await expect(page.getByTestId("entity-current-version")).toHaveText("no version: applied once per event");
  await expect(page.getByTestId("entity-current")).toContainText(
    (await rows.first().getAttribute("data-event-id")) ?? "no first row",
  );
  await expect(page.getByTestId("entity-current")).toContainText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
  await expect(page.getByTestId("entity-state")).toContainText("70.00 USD");
  await expect(page.getByTestId("entity-state")).toContainText("invoice_count");

  // A versioned entity states its current version as the date it stands for (created 1712900000).
  await page.goto(`/entities/stripe/subscription/sub_1Subj${tag}`);
  await expect(page.getByTestId("entity-current-version")).toHaveText("2024-04-12 05:33:20");
  await expect(page.locator(`li[data-event-id="evt_${tag}_sub"]`)).toContainText("customer.subscription");

  // And an invoice's own page says its event moved the customer, linked.
  await page.goto(`/entities/stripe/invoice/in_1Ent${tag}1`);
  const own = page.locator(`li[data-event-id="evt_${tag}_ent1"]`);
  await expect(own).toHaveAttribute("data-outcome", "elsewhere");
  await expect(own.getByRole("link", { name: `customer ${other}` })).toBeVisible();
  await expect(page.getByTestId("entity-current-version")).toHaveText(
    `no version: applied once per event, to customer ${other}`,
  );
  await expect(page.getByText("An invoice from stripe")).toBeVisible();
  await page.goto(`/entities/stripe/customer/${other}`);
  await atWidths(page, "entity");
  await page.emulateMedia({ colorScheme: "dark" });
  await atWidths(page, "entity-dark");
  await page.emulateMedia({ colorScheme: "light" });
});

test("[ui] the bundle route refuses a caller without a session", async ({ request }) => {
  const url = `/subjects/${customerId}/bundle`;
  const redirected = await request.get(url, { maxRedirects: 0 });
  expect(redirected.status()).toBe(307);
  expect(redirected.headers().location).toContain("/sign-in");
  const forged = await request.get(url, { maxRedirects: 0, headers: { cookie: "ledger.session_token=forged" } });
  expect(forged.status()).toBe(401);
});
