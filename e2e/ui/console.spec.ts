import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signStripe } from "../../test/sign";
import { e2eSql, settledCount } from "../db";
import { E2E } from "../env";
import { addUser, shot, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const users = { support: `support-${tag}@e2e.example`, ops: `ops-${tag}@e2e.example` };
const PW = "console password 123";
const customerId = `cus_Con${tag}`;
const subscriptionId = `sub_1Con${tag}`;
const XSS = `<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"><a href="javascript:window.__xss = 3">click me ${tag}</a>`;

async function deliver(request: APIRequestContext, event: object) {
  const d = signStripe(JSON.stringify(event), "whsec_e2e_stripe");
  expect((await request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body })).status()).toBe(200);
}

test.beforeAll(async ({ browser, request }) => {
  const admin = await browser.newPage();
  await signInAt(admin, "/users", E2E.admin.email, E2E.admin.password);
  await addUser(admin, users.support, "support", PW);
  await addUser(admin, users.ops, "ops", PW);
  await admin.close();
  // The newer state first, then an older one that must be recorded stale; an invoice for the same customer.
  await deliver(
    request,
    stripeSubscriptionEvent({
      eventId: `evt_${tag}_new`,
      created: 2_000_000,
      status: "active",
      subscriptionId,
      customerId,
    }),
  );
  // A 200 means claimed: the older event goes in once the newer one is applied, so it must be weighed against it.
  await expect.poll(() => settledCount(sql, [`evt_${tag}_new`]), { timeout: 30_000 }).toBe(1);
  await deliver(
    request,
    stripeSubscriptionEvent({
      eventId: `evt_${tag}_old`,
      created: 1_000_000,
      status: "past_due",
      subscriptionId,
      customerId,
    }),
  );
  await deliver(
    request,
    stripeInvoicePaidEvent({
      eventId: `evt_${tag}_inv`,
      customerId,
      customerEmail: `billing-${tag}@example.com`,
      invoiceId: `in_1Con${tag}`,
    }),
  );
  const hostile = stripeSubscriptionEvent({
    eventId: `evt_${tag}_xss`,
    created: 3_000_000,
    subscriptionId: `sub_1Xss${tag}`,
    customerId: `cus_Xss${tag}`,
  });
  (hostile.data.object as Record<string, unknown>).description = XSS;
  (hostile.data.object as Record<string, unknown>).metadata = { [`<b>key ${tag}</b>`]: "javascript:alert(1)" };
  await deliver(request, hostile);
  await expect
    .poll(
      async () =>
        (
          await sql`select count(*)::int as n from webhook_event where event_id like ${`evt_${tag}_%`} and status = 'settled'`
        )[0]?.n,
      { timeout: 30_000 },
    )
    .toBe(4);
});
test.afterAll(async () => sql.end());

async function noScriptRan(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await expect(page.locator('a[href^="javascript:"]')).toHaveCount(0);
}

test("[ui] support searches by a customer id and finds every event that touched it, with no requeue controls", async ({
  page,
}) => {
  await signInAt(page, "/events", users.support, PW);
  await page.getByLabel("Search", { exact: true }).fill(customerId);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`q=${customerId}`));
  const rows = page.locator("tbody tr[data-event-id]");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toHaveAttribute("data-event-id", `evt_${tag}_inv`);
  await expect(page.getByRole("button", { name: /Requeue/ })).toHaveCount(0);
  await expect(page.getByRole("columnheader", { name: "Actions" })).toHaveCount(0);
  await shot(page, "events-search");

  // The same view is a shareable link; an email finds the invoice.
  await page.goto(`/events?q=${encodeURIComponent(`Billing-${tag}@example.com`)}`);
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(1);
});

test("[ui] the payload of a hostile event renders as text on the list, event and entity pages", async ({ page }) => {
  page.on("dialog", () => {
    throw new Error("a dialog opened: payload ran as script");
  });
  await signInAt(page, `/events?q=evt_${tag}_xss`, users.support, PW);
  await noScriptRan(page);
  await page.getByRole("link", { name: `evt_${tag}_xss` }).click();
  await expect(page.getByRole("heading", { name: `evt_${tag}_xss` })).toBeVisible();
  await expect(page.locator("[data-json-viewer]").getByText(XSS, { exact: false })).toBeVisible();
  // metadata sits deeper than the viewer opens by default: expand it like a person would.
  const key = page.locator('[data-json-viewer] [data-jv="key"]', { hasText: `<b>key ${tag}</b>` });
  await expect(key).toBeHidden();
  await page.locator('[data-json-viewer] details[data-path="data.object.metadata"] > summary').click();
  await expect(key).toBeVisible();
  await expect(page.locator("[data-verifies-now]")).toContainText("Verifies with the current secret: yes");
  await page.getByRole("tab", { name: "Raw body" }).click();
  await expect(page.locator("[data-raw-body]")).toContainText("<script>window.__xss = 1</script>");
  await noScriptRan(page);
  await shot(page, "event-hostile");
  await page
    .getByRole("link", { name: `subscription sub_1Xss${tag}` })
    .first()
    .click();
  await expect(page.getByRole("heading", { name: `sub_1Xss${tag}` })).toBeVisible();
  await noScriptRan(page);
});

test("[ui] the entity timeline shows the late, older update as stale and the newest state as current", async ({
  page,
}) => {
  await signInAt(page, `/entities/stripe/subscription/${subscriptionId}`, users.support, PW);
  const old = page.locator(`li[data-event-id="evt_${tag}_old"]`);
  const latest = page.locator(`li[data-event-id="evt_${tag}_new"]`);
  await expect(old).toHaveAttribute("data-outcome", "stale");
  await expect(old).toContainText("stale");
  // The stale row names what it lost to: the applied version, as a date (created 2000000 = 1970-01-24 03:33:20).
  await expect(old).toContainText("Older than1970-01-24 03:33:20");
  await expect(latest).toContainText("applied");
  await expect(latest).toContainText('status: null → "active"');
  const version = page.getByTestId("entity-current-version");
  await expect(version).toHaveText("1970-01-24 03:33:20");
  await expect(version.locator("[data-version]")).toHaveAttribute("data-version", "2000000");
  await expect(page.getByTestId("entity-state")).toContainText("active");
  await expect(page.getByText("no longer in the ledger")).toHaveCount(0);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    expect(scroll).toBeLessThanOrEqual(inner);
    await shot(page, `entity-subscription-${width}`);
  }
});

test("[ui] ops requeues a dead event from its page and sees the new attempt", async ({ page }) => {
  const eventId = `evt_${tag}_dead`;
  const body = JSON.stringify(stripeInvoicePaidEvent({ eventId, customerId, invoiceId: `in_1Dead${tag}` }));
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error",
    dsql`values ('stripe', ${eventId}, 'invoice.paid', ${body}::text::jsonb, ${body}, '{}'::jsonb, 'dead', 8, 'downstream timeout')`,
  );
  await sql`insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error)
            values ('stripe', ${eventId}, 8, 'auto', 'worker', now() - interval '1 minute', now() - interval '1 minute', 'failed', 'downstream timeout')`;
  await signInAt(page, `/events/stripe/${eventId}`, users.ops, PW);
  await expect(page.locator("[data-summary] [data-status=dead]")).toHaveText("dead");
  await expect(page.locator("[data-summary-text]")).toContainText(
    "Dead because downstream timeout after 8 of 8 attempts",
  );
  await page.getByRole("button", { name: "Requeue" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Requeue event" }).click();
  await expect(page.getByRole("status")).toContainText("Requeued: waiting");
  await expect
    .poll(async () => (await sql`select status from webhook_event where event_id = ${eventId}`)[0]?.status, {
      timeout: 30_000,
    })
    .toBe("settled");
  await page.reload();
  await page.getByRole("tab", { name: /Attempts/ }).click();
  const attempt = page.locator("tr[data-attempt]", { hasText: "requeue" });
  await expect(attempt).toContainText(users.ops);
  await expect(attempt).toContainText("1 of 8");
  await expect(attempt).toContainText("applied");
  await shot(page, "event-requeued");
});

test("[ui] ops bulk-requeues the filtered dead set after confirming its count", async ({ page }) => {
  for (let i = 0; i < 3; i++) {
    const body = JSON.stringify(
      stripeInvoicePaidEvent({
        eventId: `evt_${tag}_bulk${i}`,
        customerId: `cus_Bulk${tag}`,
        invoiceId: `in_1Bulk${tag}${i}`,
      }),
    );
    await seedEventsAt(
      E2E.databaseUrl,
      "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, subject_ids",
      dsql`values ('stripe', ${`evt_${tag}_bulk${i}`}, 'invoice.paid', ${body}::text::jsonb, ${body}, '{}'::jsonb,
                      'dead', 8, 'timeout', array[${`cus_Bulk${tag}`}])`,
    );
  }
  await signInAt(page, `/events?status=dead&q=cus_Bulk${tag}`, users.ops, PW);
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(3);
  await page.getByRole("button", { name: "Requeue failed/dead…" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Confirm bulk requeue" });
  await expect(confirm).toContainText("Requeue 3 failed/dead events matching this filter?");
  await shot(page, "events-bulk-confirm");
  await confirm.getByRole("button", { name: "Requeue 3" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Requeued 3 events." })).toBeVisible();
  // The list is fetched again after the action: the three rows it counted have left the dead view.
  await expect(page.locator("tbody tr[data-event-id]")).toHaveCount(0);
  await expect
    .poll(
      async () =>
        (
          await sql`select count(*)::int as n from webhook_event where event_id like ${`evt_${tag}_bulk%`} and status = 'settled'`
        )[0]?.n,
      { timeout: 30_000 },
    )
    .toBe(3);
});

test("[ui] an event id with URL-special characters opens its own page", async ({ page }) => {
  const eventId = `msg:odd@${tag}/x y%41`;
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status",
    dsql`values ('standard', ${eventId}, 'user.created', '{"type":"user.created"}'::jsonb, '{"type":"user.created"}', '{}'::jsonb, 'settled')`,
  );
  await signInAt(page, `/events?q=${encodeURIComponent(eventId)}`, users.support, PW);
  await page.getByRole("link", { name: eventId }).click();
  await expect(page.getByRole("heading", { name: eventId })).toBeVisible();
});

test("[ui] the payload viewer copies a field's path and its value", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signInAt(page, `/events/stripe/evt_${tag}_inv`, users.support, PW);
  const row = page.locator('[data-json-viewer] [data-path="data.object.customer"]');
  await row.hover();
  await row.getByRole("button", { name: "path" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("data.object.customer");
  await row.getByRole("button", { name: "value" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(customerId);
});

test("[ui] overview and the events list, as a person sees them", async ({ page }) => {
  // A day of traffic from three sources (delivery rows only: the chart reads webhook_delivery), so the chart
  // stacks series across its whole width rather than showing this spec's own spike alone.
  await sql`insert into webhook_delivery (source, event_id, received_at, via, claimed)
            select (array['stripe', 'github', 'shopify'])[1 + n % 3], ${`evt_${tag}_traffic_`} || n,
                   now() - make_interval(mins => (n * 7) % 1430), 'provider', n % 11 <> 0
            from generate_series(1, 600) n`;
  // And a dead event with a long error, for the failing and dead tables.
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error",
    dsql`values ('stripe', ${`evt_${tag}_overview_dead_with_a_long_identifier`}, 'invoice.payment_failed', '{}'::jsonb,
                    '{}', '{}'::jsonb, 'dead', 8,
                    'handler error at data.object.lines.data[0].price.recurring: expected an object, received null (after 8 attempts)')`,
  );
  // And an undecided tie (a timeline row only), for the panel that lets ops decide it.
  await sql`insert into entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes, note,
                                           prior_version, prior_event_id)
            values ('stripe', 'subscription', ${`sub_1Tie${tag}`}, ${`evt_${tag}_tie_b`}, 1712900000, 'tie', '{}'::jsonb,
                    'tie: same version, no evidence', 1712900000, ${`evt_${tag}_tie_a`})`;
  await signInAt(page, "/", users.ops, PW);
  await expect(page.locator(`[data-event-id="evt_${tag}_overview_dead_with_a_long_identifier"]`)).toBeVisible();
  const tie = page.getByRole("region", { name: "Ties to decide" }).locator(`tr[data-event-id="evt_${tag}_tie_b"]`);
  await expect(tie.getByRole("link", { name: `subscription sub_1Tie${tag}` })).toBeVisible();
  await expect(tie.getByRole("button", { name: "Apply this event" })).toBeVisible();
  await expect(page.getByRole("link", { name: "invoice.payment_failed" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Deliveries, last 24 h (UTC)" })).toBeVisible();
  await expect(page.getByTestId("delivery-chart-bucket")).toHaveText("each bar: 10 minutes");
  await expect(page.locator("[data-stat=duplicate-rate]")).toContainText("Duplicate rate");
  await expect(page.locator("[data-stat=settled]")).toContainText(/\d/);
  // A real chart: an x axis of UTC times, a legend entry per source that delivered, values on hover.
  const chart = page.getByTestId("delivery-chart");
  const ticks = chart.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(ticks.first()).toHaveText(/^\d{2}:\d{2}$/);
  expect(await ticks.count()).toBeGreaterThanOrEqual(4);
  for (const label of await ticks.allTextContents()) expect(label).toMatch(/^([01]\d|2[0-3]):00$/);
  const delivered = await sql<{ source: string }[]>`
    select distinct source from webhook_delivery where received_at > now() - interval '24 hours' order by source`;
  const legend = page.getByTestId("delivery-chart-legend").locator("li[data-source]");
  await expect(legend).toHaveCount(delivered.length);
  expect(await legend.evaluateAll((els) => els.map((e) => e.getAttribute("data-source")))).toEqual(
    delivered.map((d) => d.source),
  );
  await expect(legend.filter({ hasText: "stripe" })).toBeVisible();
  const bars = chart.locator(".recharts-bar-rectangle path");
  await bars.last().hover();
  const tooltip = chart.locator(".recharts-tooltip-wrapper");
  await expect(tooltip).toContainText("stripe");
  await expect(tooltip).toContainText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}–\d{2}:\d{2} UTC/);
  // The newest bar is this spec's own deliveries: its tooltip counts them.
  await expect(tooltip.getByText("total").locator("xpath=following-sibling::*[1]")).not.toHaveText("0");
  await bars.nth(Math.floor((await bars.count()) / 2)).hover();
  await expect(tooltip).toContainText("github");
  await shot(page, "overview-chart-tooltip");
  await page.mouse.move(0, 0);
  for (const [width, scheme] of [
    [1440, "light"],
    [390, "light"],
    [1440, "dark"],
    [390, "dark"],
  ] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await expect(ticks.first()).toBeVisible();
    // A phone merges the 10-minute buckets into 30-minute bars, wide enough to see and tap.
    await expect(page.getByTestId("delivery-chart-bucket")).toHaveText(`each bar: ${width < 560 ? 30 : 10} minutes`);
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    expect(scroll).toBeLessThanOrEqual(inner);
    await shot(page, `overview-${width}${scheme === "dark" ? "-dark" : ""}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByRole("link", { name: "Events" }).click();
  await expect(page.locator("tbody tr[data-event-id]").first()).toBeVisible();
  await shot(page, "events");
  const res = await page.request.get(`/events/stripe/evt_${tag}_inv/export`);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-disposition"]).toContain(`stripe-evt_${tag}_inv.json`);
  const doc = (await res.json()) as { rawBody: string; deliveries: unknown[]; attempts: unknown[] };
  expect(doc.rawBody).toContain(`evt_${tag}_inv`);
  expect(doc.deliveries).toHaveLength(1);
});
