import { randomUUID } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startFakeApi, stripeRoute, type FakeApi } from "../../test/replay/fake-api";
import { stripeInvoicePaidEvent } from "../../test/fixtures/stripe";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";

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
    await sql`insert into webhook_event (source, event_id, event_type, payload, raw_body, headers, status)
              values ('stripe', ${e.id}, ${e.type}, ${sql.json(e)}, ${JSON.stringify(e)}, '{}'::jsonb, 'settled')`;
});
test.afterAll(async () => {
  await api.close();
  await sql.end();
});

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
  await page.getByLabel("Since (UTC)").fill("2026-11-01T10:00:00");
  await page.getByLabel("Until (UTC)").fill("2026-11-01T10:40:00");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page).toHaveURL(/\/replays\?preview=\d+$/);
  await expect(page.getByTestId("preview-summary")).toHaveText(
    "250 events at Stripe in this window · 200 already in the ledger · 50 would be new.",
    { timeout: 15_000 },
  );
  expect(await sql`select count(*)::int as n from webhook_event where event_id like ${`evt_e2e${run}_%`}`).toEqual([
    { n: 200 },
  ]);
  await shot(page, "replay-preview");

  await page.getByRole("button", { name: "Start replay (50 new)" }).click();
  const row = page.locator('tr[data-kind="replay"]').first();
  await expect(row).toHaveAttribute("data-status", "succeeded", { timeout: 20_000 });
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
      { timeout: 15_000 },
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
  await expect(page.getByLabel("Since (UTC)")).toHaveCount(0);
  await page.goto(`/replays?preview=${String(preview!.id)}`);
  await expect(page.getByRole("button", { name: /Start replay/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^(Cancel|Resume)$/ })).toHaveCount(0);
  await shot(page, "replays-support");
  await page.close();
});
