import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signStripe } from "../../test/sign";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

/**
 * Every console page at a phone, a laptop and a desktop width: the page never scrolls sideways, and every
 * table's action controls can be reached (on screen, or by scrolling the table's own container).
 * `npm run screens` keeps a screenshot of each page at 1440 and 390 px in test-results/screens/layout-*.png.
 */
// Each test opens its own pages; a worker that runs any of them seeds its own events (beforeAll, its own tag).
test.describe.configure({ mode: "parallel" });

const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const customerId = `cus_Lay${tag}`;
const subscriptionId = `sub_1Lay${tag}`;
const WIDTHS = [1440, 1280, 390] as const;

const PAGES: { name: string; path: string }[] = [
  { name: "overview", path: "/" },
  { name: "events", path: "/events" },
  { name: "events-search", path: `/events?q=${customerId}` },
  { name: "event", path: `/events/stripe/evt_${tag}_sub` },
  { name: "event-dead", path: `/events/stripe/evt_${tag}_dead` },
  { name: "failures", path: "/failures" },
  { name: "entity", path: `/entities/stripe/subscription/${subscriptionId}` },
  { name: "subject", path: `/subjects/${customerId}` },
  { name: "subject-print", path: `/subjects/${customerId}/print` },
  { name: "sources", path: "/sources" },
  { name: "source", path: "/sources/stripe" },
  { name: "source-new", path: "/sources/new" },
  { name: "destinations", path: "/destinations" },
  { name: "replays", path: "/replays" },
  { name: "alerts", path: "/alerts" },
  { name: "audit", path: "/audit" },
  { name: "users", path: "/users" },
  { name: "erasure", path: "/erasure" },
  { name: "account", path: "/account" },
];

async function deliver(page: Page, event: object) {
  const d = signStripe(JSON.stringify(event), "whsec_e2e_stripe");
  const res = await page.request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body });
  expect(res.status()).toBe(200);
}

/** How far the document is wider than the viewport (0 when nothing scrolls sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/**
 * The overflow once the resize has settled: right after a resize from a wider viewport Chromium reported a document
 * up to 115 px wider than any element in it, gone a frame or two later. A page that does scroll sideways keeps
 * doing so, and the last reading is returned.
 */
async function settledOverflow(page: Page) {
  let over = await overflow(page);
  for (let i = 0; over > 0 && i < 20; i++) {
    await page.waitForTimeout(100);
    over = await overflow(page);
  }
  return over;
}

/** The outermost elements that reach past the viewport's right edge, named so a failure says what is too wide. */
const tooWide = (page: Page) =>
  page.evaluate(() => {
    const edge = document.documentElement.clientWidth + 1;
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      if (el.getBoundingClientRect().right <= edge) continue;
      if (el.parentElement && el.parentElement.getBoundingClientRect().right > edge) continue;
      out.push(`<${el.tagName.toLowerCase()} class="${String(el.className).slice(0, 60)}">`);
    }
    return out.slice(0, 3).join(", ");
  });

/**
 * Buttons and links inside table rows that are neither on screen nor reachable by scrolling their own
 * scroll container: returned as text so a failure names them.
 */
const unreachableActions = (page: Page) =>
  page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("tbody tr button, tbody tr a")) {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden" || el.offsetParent === null) continue;
      const box = el.getBoundingClientRect();
      const scroller = el.closest<HTMLElement>('[data-slot="table-container"]');
      const within = box.left >= -1 && box.right <= window.innerWidth + 1;
      const byScroll = scroller !== null && scroller.scrollWidth > scroller.clientWidth;
      if (!within && !byScroll) out.push(el.textContent?.trim() || el.tagName);
    }
    return out;
  });

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await deliver(
    page,
    stripeSubscriptionEvent({
      eventId: `evt_${tag}_sub`,
      created: 1_790_000_000,
      status: "active",
      subscriptionId,
      customerId,
    }),
  );
  await deliver(
    page,
    stripeInvoicePaidEvent({
      eventId: `evt_${tag}_inv`,
      customerId,
      customerEmail: `lay-${tag}@example.com`,
      invoiceId: `in_1Lay${tag}`,
    }),
  );
  const body = JSON.stringify(
    stripeInvoicePaidEvent({ eventId: `evt_${tag}_dead`, customerId, invoiceId: `in_1LayD${tag}` }),
  );
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, subject_ids",
    dsql`values ('stripe', ${`evt_${tag}_dead`}, 'invoice.paid', ${body}::text::jsonb, ${body}, '{}'::jsonb, 'dead', 8,
                    'handler input: invoice has no data.object.customer_email to notify', array[${customerId}])`,
  );
  await expect
    .poll(async () => (await sql`select status from webhook_event where event_id = ${`evt_${tag}_sub`}`)[0]?.status, {
      timeout: 30_000,
    })
    .toBe("settled");
  await page.close();
});

test.afterAll(async () => {
  await sql.end();
});

// Each page is loaded once and checked at every width by resizing the viewport (the layout is CSS alone: no
// component reads the window's width). Two tests, so the two workers share the pages.
const HALVES = [PAGES.slice(0, 10), PAGES.slice(10)];
for (const [i, pages] of HALVES.entries())
  test(`[ui] console pages ${i + 1}/2 fit ${WIDTHS.join(", ")} px without sideways scrolling, actions reachable`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: WIDTHS[0], height: 900 });
    await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
    const problems: string[] = [];
    for (const p of pages) {
      await page.setViewportSize({ width: WIDTHS[0], height: 900 });
      const res = await page.goto(p.path);
      expect(res?.status(), `${p.path} answers`).toBeLessThan(400);
      await page.waitForLoadState("networkidle");
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        expect(await page.evaluate(() => window.innerWidth), "the page was laid out at the new width").toBe(width);
        const over = await settledOverflow(page);
        if (over > 0) problems.push(`${p.path} at ${width}px scrolls sideways by ${over}px: ${await tooWide(page)}`);
        const hidden = await unreachableActions(page);
        if (hidden.length) problems.push(`${p.path} at ${width}px: unreachable row actions ${hidden.join(", ")}`);
        if (width !== 1280) await shot(page, `layout-${p.name}-${width}`);
      }
    }
    expect(problems).toEqual([]);
  });

test("[ui] the signed-out pages (sign-in, setup) fit every width too", async ({ page }) => {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const path of ["/sign-in", "/setup"]) {
      await page.goto(path);
      expect(await overflow(page), `${path} at ${width}px`).toBe(0);
      if (width !== 1280) await shot(page, `layout${path.replace("/", "-")}-${width}`);
    }
  }
});

test("[ui] on a phone the sidebar is a menu that opens, navigates and closes", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
  await expect(page.getByRole("navigation", { name: "Console", exact: true })).toBeHidden();
  await page.getByRole("button", { name: "Open menu" }).click();
  const menu = page.getByRole("dialog");
  await expect(menu.getByRole("link", { name: "Events" })).toBeVisible();
  await shot(page, "layout-menu-390");
  await menu.getByRole("link", { name: "Events" }).click();
  await expect(page).toHaveURL(/\/events$/);
  await expect(page.getByRole("dialog")).toBeHidden();
});

test("[ui] a console page fetches no other route on load; a link prefetches its route once hovered", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
  const prefetched: string[] = [];
  page.on("request", (r) => {
    if (r.headers()["next-router-prefetch"]) prefetched.push(new URL(r.url()).pathname);
  });
  await page.goto("/events");
  await page.waitForLoadState("networkidle");
  expect(prefetched, "routes fetched before anyone pointed at them").toEqual([]);
  const nav = page.getByRole("navigation", { name: "Console", exact: true });
  await nav.getByRole("link", { name: "Failures" }).hover();
  await expect.poll(() => prefetched).toContain("/failures");
  await nav.getByRole("link", { name: "Failures" }).click();
  await expect(page).toHaveURL(/\/failures$/);
});

test("[ui] the wide sidebar collapses to icons and stays collapsed after a reload", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
  const nav = page.getByRole("navigation", { name: "Console", exact: true });
  await nav.getByRole("button", { name: "Collapse sidebar" }).click();
  await expect(nav).toHaveAttribute("data-collapsed", "true");
  await page.reload();
  await expect(nav).toHaveAttribute("data-collapsed", "true");
  await expect(nav.getByRole("link", { name: "Events" })).toBeVisible();
  await nav.getByRole("button", { name: "Expand sidebar" }).click();
  await expect(nav).not.toHaveAttribute("data-collapsed", "true");
});

test("[ui] the dark theme is chosen, applied to <html> and remembered", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAt(page, "/events", E2E.admin.email, E2E.admin.password);
  await page.getByRole("button", { name: "Dark theme" }).click();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await shot(page, "layout-events-dark-1440");
  await page.getByRole("button", { name: "Light theme" }).click();
  await expect(page.locator("html")).not.toHaveClass(/dark/);
});

test("[ui] /favicon.ico and the icon answer", async ({ request }) => {
  expect((await request.get("/icon.svg")).status()).toBe(200);
  const fav = await request.get("/favicon.ico");
  expect(fav.status()).toBe(200);
});
