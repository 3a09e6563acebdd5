import { randomUUID } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startFakeApi, stripeRoute, type FakeApi } from "../../test/replay/fake-api";
import { stripeInvoicePaidEvent } from "../../test/fixtures/stripe";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

// The app was started with STRIPE_API_BASE/STRIPE_API_KEY from E2E.replayApi.env: this spec serves that API.
const sql = e2eSql();
const run = randomUUID().slice(0, 8);
const since = Date.parse("2026-11-01T10:00:00Z") / 1000;
const events = Array.from({ length: 250 }, (_, i) =>
  stripeInvoicePaidEvent({
    eventId: `evt_e2e${run}_${String(i).padStart(4, "0")}`,
    invoiceId: `in_e2e${run}${String(i).padStart(6, "0")}`,
    customerId: `cus_e2e${run}`,
    created: since + i * 9,
  }),
);
let api: FakeApi;

test.beforeAll(async () => {
  api = await startFakeApi(stripeRoute(events, E2E.replayApi.env.STRIPE_API_KEY), E2E.replayApi.port);
  // 200 of the 250 were delivered and processed long ago; every 5th was missed.
  for (const e of events.filter((_, i) => i % 5 !== 0))
    await seedEventsAt(
      E2E.databaseUrl,
      "source, event_id, event_type, payload, raw_body, headers, status",
      dsql`values ('stripe', ${e.id}, ${e.type}, ${JSON.stringify(e)}::jsonb, ${JSON.stringify(e)}, '{}'::jsonb, 'settled')`,
    );
});
test.afterAll(async () => {
  await api.close();
  await sql.end();
});

async function noSideScroll(page: Page) {
  const { scroll, inner } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  expect(scroll, "the page must not scroll sideways").toBeLessThanOrEqual(inner);
}

async function userWithRole(browser: Browser, role: "ops" | "support"): Promise<Page> {
  const admin = await browser.newPage();
  const email = `${role}-${randomUUID().slice(0, 8)}@e2e.example`;
  await signInAt(admin, "/users", E2E.admin.email, E2E.admin.password);
  await admin.getByLabel("Email").fill(email);
  await admin.getByLabel("Initial password").fill(`${role} password 1234`);
  await admin.getByLabel("Role").first().selectOption(role);
  await admin.getByRole("button", { name: "Add user" }).click();
  await expect(admin.getByRole("status")).toHaveText("User added.");
  await admin.close();
  const page = await browser.newPage();
  await signInAt(page, "/replays", email, `${role} password 1234`);
  return page;
}

test("[ui] an ops user previews a replay of a Stripe window, starts it, and sees its counts", async ({ browser }) => {
  const page = await userWithRole(browser, "ops");
  await expect(page.getByRole("heading", { name: "Replays" })).toBeVisible();
  await page.getByLabel("Source").selectOption("stripe");
  await page.getByLabel("Start (UTC)").fill("2026-11-01 10:00");
  await page.getByLabel("End (UTC)").fill("2026-11-01 10:40");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page).toHaveURL(/\/replays\?preview=\d+$/);
  await expect(page.getByTestId("preview-summary")).toHaveText(
    "250 events at Stripe in this window · 200 already in the ledger · 50 would be new.",
    { timeout: 30_000 },
  );
  // The sample: would-be-new events by id, type and provider time; the form still shows the window.
  const preview = page.getByRole("region", { name: "Preview" });
  await expect(preview.locator("[data-sample]")).toHaveCount(10);
  await expect(preview.locator("[data-sample]").first()).toContainText("invoice.paid");
  await expect(page.getByLabel("Start (UTC)")).toHaveValue("2026-11-01 10:00");
  await expect(page.getByLabel("End (UTC)")).toHaveValue("2026-11-01 10:40");
  expect(await sql`select count(*)::int as n from webhook_event where event_id like ${`evt_e2e${run}_%`}`).toEqual([
    { n: 200 },
  ]);
  await shot(page, "replay-preview");

  await page.getByRole("button", { name: "Start replay (50 new)" }).click();
  const row = page.locator('tr[data-kind="replay"]').first();
  await expect(row).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  await expect(row.locator('[data-count="fetched"]')).toHaveText("250");
  await expect(row.locator('[data-count="new"]')).toHaveText("50");
  await expect(row.locator('[data-count="duplicates"]')).toHaveText("200");
  await expect(row.locator('[data-count="failed"]')).toHaveText("0");
  await shot(page, "replays");

  expect(
    await sql`select count(*)::int as n from webhook_event where event_id like ${`evt_e2e${run}_%`} and via = 'replay'`,
  ).toEqual([{ n: 50 }]);
  // The embedded worker processes them, each attempt recorded as a replay.
  await expect
    .poll(
      async () =>
        (
          await sql`select count(*)::int as n from webhook_attempt where event_id like ${`evt_e2e${run}_%`} and trigger = 'replay'`
        )[0]?.n,
      { timeout: 30_000 },
    )
    .toBe(50);
  expect(
    await sql`select action, result from audit_log where action like 'replay.%' and actor_email like 'ops-%' order by id`,
  ).toEqual([
    { action: "replay.preview", result: "ok" },
    { action: "replay.start", result: "ok" },
  ]);
  await page.close();
});

test("[ui] a support user sees the replay runs but gets no form and no preview to start", async ({ browser }) => {
  const [preview] =
    await sql`insert into replay_run (actor, source, since, until, dry_run, status, fetched, new, duplicates, finished_at)
    values ('ops@e2e.example', 'stripe', '2026-11-01T10:00:00Z', '2026-11-01T10:40:00Z', true, 'succeeded', 250, 50, 200, now()) returning id::int`;
  const page = await userWithRole(browser, "support");
  await expect(page.getByRole("heading", { name: "Replays" })).toBeVisible();
  await expect(page.locator(`tr[data-run-id="${String(preview!.id)}"]`)).toContainText("ops@e2e.example");
  await expect(page.getByRole("button", { name: "Preview" })).toHaveCount(0);
  await expect(page.getByLabel("Start (UTC)")).toHaveCount(0);
  await page.goto(`/replays?preview=${String(preview!.id)}`);
  await expect(page.getByRole("button", { name: /Start replay/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^(Cancel|Resume)$/ })).toHaveCount(0);
  await shot(page, "replays-support");
  await page.close();
});

test("[ui] the replay form names the field that is wrong, keeps what was typed, and takes 24 h UTC text", async ({
  browser,
}) => {
  const page = await userWithRole(browser, "ops");
  const form = page.getByRole("form", { name: "Replay a window" });
  const start = page.getByLabel("Start (UTC)");
  const end = page.getByLabel("End (UTC)");
  const types = page.getByLabel("Event types");
  // Text inputs, not the browser's locale picker: the same on every machine.
  await expect(start).toHaveAttribute("type", "text");
  await expect(start).toHaveAttribute("placeholder", "YYYY-MM-DD HH:MM");
  // Only the sources with an API key here can be chosen (the e2e deploy sets STRIPE_API_KEY only).
  expect(await page.getByLabel("Source").locator("option").allTextContents()).toEqual(["Choose a source…", "Stripe"]);
  await expect(page.getByTestId("replay-setup")).toContainText("Set GITHUB_TOKEN");

  const expectError = async (field: string, message: string | RegExp) => {
    await expect(form.locator(`[data-field-error="${field}"]`)).toHaveText(message);
    await expect(form.getByRole("alert")).toContainText("Check the");
  };

  await page.getByLabel("Source").selectOption("");
  await start.fill("2026-11-01 10:00");
  await end.fill("2026-11-01 21:30");
  await types.fill("invoice.paid");
  await page.getByRole("button", { name: "Preview" }).click();
  await expectError("source", "Choose a source");
  await expect(page.getByLabel("Source")).toHaveAttribute("aria-invalid", "true");
  await expect(start).toHaveValue("2026-11-01 10:00");
  await expect(end).toHaveValue("2026-11-01 21:30");
  await expect(types).toHaveValue("invoice.paid");

  await page.getByLabel("Source").selectOption("stripe");
  await start.fill("2026-11-01 22:00");
  await page.getByRole("button", { name: "Preview" }).click();
  await expectError("since", "The start must be before the end");
  await expect(start).toHaveValue("2026-11-01 22:00");
  await expect(end).toHaveValue("2026-11-01 21:30");
  await expect(page.getByLabel("Source")).toHaveValue("stripe");

  await start.fill("11/01/2026 10:00 AM");
  await page.getByRole("button", { name: "Preview" }).click();
  await expectError("since", /^The start must be a UTC date and 24 h time like .* \(YYYY-MM-DD HH:MM\)$/);
  await expect(start).toHaveValue("11/01/2026 10:00 AM");
  await expect(start).toHaveAttribute("aria-invalid", "true");

  await start.fill("2026-09-01 10:00");
  await page.getByRole("button", { name: "Preview" }).click();
  await expectError("since", /^A Stripe window is at most 30 days/);

  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await noSideScroll(page);
    await shot(page, `replays-form-errors-${width}`);
  }

  // A valid 24 h window (an afternoon end, UTC) previews.
  await start.fill("2026-11-01 09:00");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page).toHaveURL(/\/replays\?preview=\d+$/);
  await expect(page.getByTestId("preview-summary")).toContainText("250 events at Stripe in this window", {
    timeout: 30_000,
  });
  await expect(form.locator("[data-field-error]")).toHaveCount(0);
  for (const [width, scheme] of [
    [1440, "light"],
    [390, "light"],
    [1440, "dark"],
    [390, "dark"],
  ] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await noSideScroll(page);
    // The runs' actions stay on screen at every width.
    const open = page
      .locator("tr[data-run-id]")
      .first()
      .getByRole("link", { name: /Open preview/ });
    await open.scrollIntoViewIfNeeded();
    const box = await open.boundingBox();
    expect(box && box.x + box.width, "the row's action is on screen without scrolling the table").toBeLessThanOrEqual(
      width,
    );
    await shot(page, scheme === "light" ? `replays-${width}` : `replays-${width}-dark`);
  }
  await page.close();
});
