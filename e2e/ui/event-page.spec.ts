import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signStripe } from "../../test/sign";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { addUser, shot, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

/**
 * The event page as support reads a dispute: a sentence that says what happened, provider times as dates,
 * the payload tree opened at the path an error names, the raw body exactly as delivered, the headers, the
 * attempts and what the event changed; Copy as cURL reproduces the delivery.
 */
const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const PW = "event page password 1";
const users = { support: `evp-support-${tag}@e2e.example`, ops: `evp-ops-${tag}@e2e.example` };
const sub = `sub_1Evp${tag}`;
const tieSub = `sub_1EvpTie${tag}`;
const id = (name: string) => `evt_${tag}_${name}`;
// 2024-04-12 10:18:49, 10:20:00 and 05:33:20 UTC.
const [FIRST, SECOND, OLDER] = [1_712_917_129, 1_712_917_200, 1_712_900_000];
const bodies = new Map<string, string>();

async function deliver(request: APIRequestContext, event: { id: string }, times = 1) {
  const body = bodies.get(event.id) ?? JSON.stringify(event);
  bodies.set(event.id, body);
  for (let i = 0; i < times; i++) {
    const d = signStripe(body, "whsec_e2e_stripe");
    expect((await request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body })).status()).toBe(200);
  }
}

async function settled(eventId: string, status = "settled") {
  await expect
    .poll(async () => (await sql`select status from webhook_event where event_id = ${eventId}`)[0]?.status, {
      timeout: 30_000,
    })
    .toBe(status);
}

const summary = (page: Page) => page.locator("[data-summary-text]");
const panel = (page: Page, name: string | RegExp) => page.getByRole("tabpanel", { name });

async function noSidewaysScroll(page: Page) {
  const { scroll, inner } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(inner);
}

test.beforeAll(async ({ browser, request }) => {
  const admin = await browser.newPage();
  await signInAt(admin, "/users", E2E.admin.email, E2E.admin.password);
  await addUser(admin, users.support, "support", PW);
  await addUser(admin, users.ops, "ops", PW);
  await admin.close();

  const subscription = (name: string, created: number, status: string, more: object = {}) =>
    stripeSubscriptionEvent({
      eventId: id(name),
      created,
      status,
      subscriptionId: sub,
      customerId: `cus_Evp${tag}`,
      ...more,
    });
  // One at a time, so each is weighed against the one before it: first, newer (twice: a duplicate), older.
  await deliver(request, subscription("first", FIRST, "past_due"));
  await settled(id("first"));
  await deliver(request, subscription("second", SECOND, "active"), 2);
  await settled(id("second"));
  await deliver(request, subscription("older", OLDER, "trialing"));
  await settled(id("older"));
  // Two states in the same second, neither the other's previous one, and the provider's API unreachable: a tie.
  await deliver(request, subscription("tie1", FIRST, "active", { subscriptionId: tieSub }));
  await settled(id("tie1"));
  await deliver(request, subscription("tie2", FIRST, "canceled", { subscriptionId: tieSub }));
  await settled(id("tie2"));
  // No price: the handler names the path it needs, and the event is dead at once (retrying cannot add a price).
  await deliver(request, subscription("dead", SECOND, "active", { subscriptionId: `sub_1EvpDead${tag}`, priceId: "" }));
  await settled(id("dead"), "dead");
  await deliver(request, {
    id: id("ignored"),
    object: "event",
    created: FIRST,
    type: "customer.created",
    data: { object: { id: `cus_EvpIgn${tag}`, object: "customer" } },
  } as { id: string });
  await settled(id("ignored"));
  // A retry in progress: three failed attempts, the next one scheduled.
  const body = JSON.stringify(subscription("retry", SECOND, "active", { subscriptionId: `sub_1EvpRetry${tag}` }));
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, next_attempt_at",
    dsql`values ('stripe', ${id("retry")}, 'customer.subscription.updated', ${body}::text::jsonb, ${body}, '{}'::jsonb,
                    'failed', 3, 'downstream timeout', now() + interval '2 hours')`,
  );
  for (const n of [1, 2, 3])
    await sql`insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error, error_kind)
              values ('stripe', ${id("retry")}, ${n}, 'auto', 'worker', now() - interval '1 minute', now() - interval '1 minute' + interval '35 milliseconds',
                      'failed', 'downstream timeout', 'transient')`;
  // A dead event a person resolved outside the ledger, with a note.
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, resolution, resolution_note, resolved_by, resolved_at",
    dsql`values ('stripe', ${id("resolved")}, 'customer.subscription.updated', ${body}::text::jsonb, ${body}, '{}'::jsonb,
                    'dead', 8, 'downstream timeout', 'resolved', 'refunded by hand in Stripe', ${users.ops}, now())`,
  );
});
test.afterAll(async () => sql.end());

test("[ui] the event page says in words what happened, with provider times as dates", async ({ page }) => {
  await signInAt(page, `/events/stripe/${id("second")}`, users.support, PW);
  await expect(page.getByRole("heading", { level: 1, name: id("second") })).toBeVisible();
  await expect(summary(page)).toHaveText(
    `Applied: moved subscription ${sub} from 2024-04-12 10:18:49 to 2024-04-12 10:20:00. Changed status.`,
  );
  expect(await summary(page).textContent()).not.toMatch(/\b\d{10}\b/);
  await expect(page.locator('[data-fact="Provider time"]')).toContainText("2024-04-12 10:20:00");
  await expect(page.locator('[data-fact="Provider time"]')).not.toContainText(String(SECOND));
  await expect(page.locator('[data-fact="Entity"]')).toContainText("2024-04-12 10:20:00");
  await expect(page.locator('[data-fact="Deliveries"]')).toContainText("2 times (1 duplicate)");
  await expect(page.locator('[data-fact="Attempts"]')).toContainText("1 of 8");
  await expect(page.locator('[data-fact="Signature"]')).toContainText("Verified at arrival with secret");
  await expect(page.locator("[data-verifies-now]")).toContainText("yes");
  await expect(page.locator('[data-fact="Subjects"]').getByRole("link", { name: `cus_Evp${tag}` })).toHaveAttribute(
    "href",
    `/subjects/cus_Evp${tag}`,
  );
  // Support reads; only ops acts.
  await expect(page.getByRole("button", { name: /Requeue|Process now|Apply this event/ })).toHaveCount(0);

  await page.goto(`/events/stripe/${id("older")}`);
  await expect(summary(page)).toContainText(
    `Stale: older than the applied version (2024-04-12 10:20:00, event ${id("second")}).`,
  );
  await expect(summary(page)).toContainText("Its own, 2024-04-12 05:33:20, was recorded");
  await page.getByRole("tab", { name: /Changes/ }).click();
  await expect(panel(page, /Changes/).locator('[data-transition="stale"]')).toContainText(
    "older: version 2024-04-12 05:33:20",
  );
  // Not "nothing changed": what it carried (trialing), beside the state that won (active, set by the second).
  const carried = panel(page, /Changes/).locator('[data-transition="stale"] [data-would-have-set]');
  await expect(carried.locator('[data-field="status"]')).toContainText('"trialing" · standing: "active"');
  await expect(carried.getByRole("link", { name: id("second") })).toBeVisible();

  await page.goto(`/events/stripe/${id("ignored")}`);
  await expect(summary(page)).toHaveText("Ignored: no handler for customer.created; nothing to apply.");

  await page.goto(`/events/stripe/${id("resolved")}`);
  await expect(summary(page)).toContainText(`Resolved by hand by ${users.ops}: refunded by hand in Stripe (20`);
  await expect(page.locator("[data-summary] [data-status]")).toHaveText("resolved by hand");

  await page.goto(`/events/stripe/${id("retry")}`);
  await expect(summary(page)).toContainText("Retrying: attempt 3 of 8 failed, next retry at 20");
  await page.getByRole("tab", { name: /Attempts/ }).click();
  await expect(page.locator("[data-next-step]")).toContainText("Next retry at");
  await expect(page.locator('tr[data-attempt="3"]')).toContainText("3 of 8");
  await expect(page.locator('tr[data-attempt="3"]')).toContainText("transient");
});

test("[ui] the delivery count links to the Deliveries tab, which lists the first delivery and the duplicate", async ({
  page,
}) => {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await signInAt(page, `/events/stripe/${id("second")}`, users.support, PW);
    await page.locator('[data-fact="Deliveries"]').getByRole("link", { name: "2 times (1 duplicate)" }).click();
    await expect(page.getByRole("tab", { name: /Deliveries/ })).toHaveAttribute("aria-selected", "true");
    await expect(page).toHaveURL(/[?&]tab=deliveries/);
    const deliveries = panel(page, /Deliveries/);
    await expect(deliveries).toBeVisible();
    await expect(deliveries.locator('[data-delivery="claimed"]')).toContainText("first: claimed");
    await expect(deliveries.locator('[data-delivery="duplicate"]')).toContainText("duplicate");
    await expect(panel(page, "Headers")).toBeHidden();
    // The address keeps the tab: a reload opens it again.
    await page.reload();
    await expect(page.getByRole("tab", { name: /Deliveries/ })).toHaveAttribute("aria-selected", "true");
    await noSidewaysScroll(page);
    await shot(page, `event-deliveries-${width}`);
    await page.context().clearCookies();
  }
});

test("[ui] tabs switch; raw body and cURL copy exactly what was delivered", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signInAt(page, `/events/stripe/${id("second")}`, users.support, PW);
  const delivered = bodies.get(id("second"))!;
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  await expect(panel(page, "Payload")).toBeVisible();
  await expect(panel(page, "Payload").locator('[data-path="data.object.status"]')).toContainText('"active"');
  await page.getByRole("tab", { name: "Raw body" }).click();
  await expect(panel(page, "Raw body")).toBeVisible();
  await expect(panel(page, "Payload")).toBeHidden();
  await page.getByRole("button", { name: "Copy raw body" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await clipboard()).toBe(delivered);
  await page.getByRole("button", { name: "Pretty" }).click();
  await expect(page.locator("[data-raw-body=pretty]")).toContainText(`"id": "${id("second")}"`);
  await expect(page.locator("[data-body-note]")).toContainText("whitespace only");

  await page.getByRole("tab", { name: "Headers" }).click();
  const headers = panel(page, "Headers").locator("[data-headers]");
  await expect(headers.locator('[data-header="stripe-signature"]')).toContainText("signature");
  await expect(panel(page, "Headers")).toContainText("Duplicate deliveries' headers are not stored.");
  await page.getByRole("tab", { name: /Deliveries/ }).click();
  await expect(panel(page, /Deliveries/).locator("[data-delivery]")).toHaveCount(2);
  await expect(panel(page, /Deliveries/).locator('[data-delivery="duplicate"]')).toContainText("not stored");

  await page.getByRole("tab", { name: /Attempts/ }).click();
  await expect(page.locator('tr[data-attempt="1"]')).toContainText("1 of 8");
  await expect(page.locator('tr[data-attempt="1"]')).toContainText("applied");
  await page.getByRole("tab", { name: /Changes/ }).click();
  await expect(page.locator('[data-transition="applied"] [data-changes]')).toContainText('"past_due" → "active"');

  await page.getByRole("button", { name: "Copy as cURL" }).click();
  const curl = await clipboard();
  const signature = (
    await sql`select headers->>'stripe-signature' as s from webhook_event where event_id = ${id("second")}`
  )[0]?.s as string;
  expect(curl).toContain(`-H 'stripe-signature: ${signature}'`);
  // The app's own URL (APP_URL), never a fixed localhost.
  expect(curl).toContain(`curl -X POST '${E2E.baseURL}/api/webhooks/stripe'`);
  expect(curl).toContain(`--data-binary @-\n${delivered}\nEOF\n`);
  expect(curl).not.toMatch(/-H 'host:/);
});

test("[ui] a dead event opens its payload at the path its error names, and ops can requeue it", async ({ page }) => {
  await signInAt(page, `/events/stripe/${id("dead")}`, users.ops, PW);
  await expect(summary(page)).toHaveText(
    "Dead because payload has no data.object.items.data[0].price.id (a subscription needs at least one item) " +
      "after 1 of 8 attempts (a permanent error: retrying cannot fix it).",
  );
  const node = panel(page, "Payload").locator('[data-path="data.object.items.data[0].price.id"]');
  await expect(node).toBeVisible();
  await expect(node).toHaveAttribute("data-focused", "true");
  await expect(panel(page, "Payload").getByRole("note")).toContainText("it is open and highlighted below");
  await expect(page.getByRole("button", { name: "Requeue" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Process now" })).toBeVisible();
  await page.getByRole("tab", { name: /Attempts/ }).click();
  await expect(page.locator('tr[data-attempt="1"]')).toContainText("permanent");
  await expect(page.locator("[data-next-step]")).toContainText("No retry is scheduled");
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.getByRole("tab", { name: "Payload" }).click();
    await noSidewaysScroll(page);
    await shot(page, `event-dead-${width}`);
  }
});

test("[ui] a tie says so, and ops can apply the event from the header", async ({ page }) => {
  await signInAt(page, `/events/stripe/${id("tie2")}`, users.ops, PW);
  await expect(summary(page)).toContainText(
    `Tie: the same version (2024-04-12 10:18:49) as event ${id("tie1")}, and nothing could order them.`,
  );
  await expect(page.getByRole("button", { name: "Apply this event" })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 900 });
  await expect(page.getByRole("button", { name: "Apply this event" })).toBeInViewport();
  await noSidewaysScroll(page);
  await shot(page, "event-tie-390");
});

test("[ui] the event page at 1440 and 390 px, light and dark, each tab at 390", async ({ page }) => {
  await signInAt(page, `/events/stripe/${id("second")}`, users.ops, PW);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await noSidewaysScroll(page);
  await shot(page, "event-1440");
  await page.setViewportSize({ width: 390, height: 900 });
  await noSidewaysScroll(page);
  await shot(page, "event-390");
  for (const [tab, name] of [
    ["Payload", "payload"],
    ["Raw body", "raw"],
    ["Headers", "headers"],
    [/Deliveries/, "deliveries"],
    [/Attempts/, "attempts"],
    [/Changes/, "changes"],
  ] as const) {
    await page.getByRole("tab", { name: tab }).click();
    await noSidewaysScroll(page);
    await shot(page, `event-390-${name}`);
  }
  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await noSidewaysScroll(page);
  await shot(page, "event-390-dark");
  await page.getByRole("tab", { name: /Attempts/ }).click();
  await shot(page, "event-390-dark-attempts");
  await page.getByRole("tab", { name: "Payload" }).click();
  await page.setViewportSize({ width: 1440, height: 1000 });
  await shot(page, "event-1440-dark");
});
