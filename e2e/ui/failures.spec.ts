import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { stripeInvoicePaidEvent } from "../../test/fixtures/stripe";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { addUser, shot, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
// A word the failure pattern keeps (no digits): it tells this run's groups from any other's.
const word = tag.replace(/[0-9]/g, (d) => "ghijklmnop"[Number(d)]!);
const users = { support: `support-${tag}@e2e.example`, ops: `ops-${tag}@e2e.example` };
const PW = "failures password 123";
const requeueIds = [0, 1, 2].map((i) => `evt_${tag}_rq${i}`);
const resolveIds = [0, 1].map((i) => `evt_${tag}_rs${i}`);

/** A dead invoice.paid event whose payload is sound: requeued, it settles. */
async function insertDead(eventId: string, error: string, minutesAgo: number) {
  const body = JSON.stringify(
    stripeInvoicePaidEvent({ eventId, customerId: `cus_F${tag}`, invoiceId: `in_1${eventId}` }),
  );
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, outcome, received_at, leased_at",
    dsql`values ('stripe', ${eventId}, 'invoice.paid', ${body}::text::jsonb, ${body}, '{}'::jsonb, 'dead', 8, ${error},
                    'failed', now() - ${minutesAgo} * interval '1 minute', now() - ${minutesAgo - 1} * interval '1 minute')`,
  );
  await sql`insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error, error_kind)
            values ('stripe', ${eventId}, 8, 'auto', 'worker', now() - ${minutesAgo - 1} * interval '1 minute',
                    now() - ${minutesAgo - 1} * interval '1 minute', 'failed', ${error},
                    ${error.startsWith("permanent:") ? "permanent" : "transient"})`;
}

async function noSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

test.beforeAll(async ({ browser }) => {
  const admin = await browser.newPage();
  await signInAt(admin, "/users", E2E.admin.email, E2E.admin.password);
  await addUser(admin, users.support, "support", PW);
  await addUser(admin, users.ops, "ops", PW);
  await admin.close();
  for (const [i, id] of requeueIds.entries())
    await insertDead(id, `permanent: ${word} downstream refused subscription sub_1Rq${tag}${i} (HTTP 422)`, 30 - i);
  for (const [i, id] of resolveIds.entries())
    await insertDead(id, `ledger ${word}: upstream timeout after ${1500 + i} ms`, 20 - i);
});
test.afterAll(async () => sql.end());

const groupCard = (page: Page, text: string) => page.locator("[data-group]", { hasText: text });
const deadRow = (page: Page, eventId: string) => page.locator(`tbody tr[data-event-id="${eventId}"]`);

test("[ui] failures groups dead events by message, ids aside, with counts and examples (1440)", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await signInAt(page, "/failures", users.ops, PW);
  await expect(page.getByRole("heading", { name: "Failures", level: 1 })).toBeVisible();
  const requeueGroup = groupCard(page, `${word} downstream refused`);
  await expect(requeueGroup).toHaveCount(1);
  await expect(requeueGroup.getByTestId("group-count")).toHaveText("3");
  await expect(requeueGroup).toContainText("permanent");
  // The example is the oldest event's message in full, ids included.
  await expect(requeueGroup).toContainText(`subscription sub_1Rq${tag}0 (HTTP 422)`);
  await expect(requeueGroup.getByRole("link", { name: "View events" })).toHaveAttribute(
    "href",
    "/events?source=stripe&type=invoice.paid&status=dead",
  );
  const timeouts = groupCard(page, `${word}: upstream timeout`);
  await expect(timeouts.getByTestId("group-count")).toHaveText("2");
  await expect(timeouts).toContainText("transient");
  // Every dead row: attempts n of max, the error and its kind.
  const row = deadRow(page, requeueIds[0]!);
  await expect(row).toContainText("8 of 8");
  await expect(row).toContainText("permanent");
  await expect(row).toContainText(`${word} downstream refused`);
  await noSidewaysScroll(page);
  await shot(page, "failures-1440");
  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await shot(page, "failures-1440-dark");
});

test("[ui] ops resolves a dead event with a note: it leaves the list, reads resolved by hand, and the note shows on its page", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await signInAt(page, "/failures", users.ops, PW);
  const [target, other] = resolveIds as [string, string];
  const note = `Paid by hand in the Stripe dashboard, ticket ${tag}`;
  await page.getByRole("checkbox", { name: `Select ${target}` }).check();
  await page.getByRole("button", { name: "Resolve…" }).click();
  const form = page.getByRole("form", { name: "Resolve selected dead events" });
  const submit = form.getByRole("button", { name: "Resolve 1 event" });
  await expect(submit).toBeDisabled();
  await form.getByLabel("Note (required)").fill(note);
  await shot(page, "failures-resolve-form");
  await submit.click();
  await expect(page.getByRole("status").filter({ hasText: "Resolved 1 event by hand." })).toBeVisible();
  await expect(deadRow(page, target)).toHaveCount(0);
  await expect(deadRow(page, other)).toHaveCount(1);
  await expect(groupCard(page, `${word}: upstream timeout`).getByTestId("group-count")).toHaveText("1");
  const [stored] =
    await sql`select status, resolution, resolution_note, resolved_by from webhook_event where event_id = ${target}`;
  expect(stored).toEqual({ status: "settled", resolution: "resolved", resolution_note: note, resolved_by: users.ops });

  await page.goto(`/events?q=${target}`);
  const listed = page.locator(`tbody tr[data-event-id="${target}"]`);
  await expect(listed).toContainText("resolved by hand");
  await expect(listed).toContainText(note);
  await page.goto(`/events/stripe/${target}`);
  await expect(page.getByText(note).first()).toBeVisible();
  await expect(page.getByText(/resolved by hand/i).first()).toBeVisible();
  await shot(page, "failures-resolved-event");
});

test("[ui] ops requeues a group after a fix: the confirmed count is the number of rows that leave the dead list", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await signInAt(page, "/failures", users.ops, PW);
  const card = groupCard(page, `${word} downstream refused`);
  const rowsBefore = await Promise.all(requeueIds.map((id) => deadRow(page, id).count()));
  expect(rowsBefore).toEqual([1, 1, 1]);
  await card.getByRole("button", { name: "Requeue group" }).click();
  const confirm = card.getByRole("alertdialog", { name: "Confirm group requeue" });
  await expect(confirm).toContainText("Requeue 3 dead events in this group?");
  await shot(page, "failures-requeue-confirm");
  await confirm.getByRole("button", { name: "Requeue 3" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Requeued 3 events of stripe invoice.paid." })).toBeVisible();
  // The refresh that came with the action: the group and its rows are gone together.
  await expect(card).toHaveCount(0);
  for (const id of requeueIds) await expect(deadRow(page, id)).toHaveCount(0);
  await expect(deadRow(page, resolveIds[1]!)).toHaveCount(1);
  await expect
    .poll(
      async () =>
        (
          await sql`select count(*)::int as n from webhook_event where event_id like ${`evt_${tag}_rq%`} and status = 'settled'`
        )[0]?.n,
      { timeout: 30_000 },
    )
    .toBe(3);
  const attempts =
    await sql`select trigger, actor from webhook_attempt where event_id = ${requeueIds[0]!} and number > 8`;
  expect(attempts).toEqual([{ trigger: "requeue", actor: users.ops }]);
});

test("[ui] support sees the failures, without a button to act, and a phone gets no sideways scroll (390)", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAt(page, "/failures", users.support, PW);
  await expect(deadRow(page, resolveIds[1]!)).toHaveCount(1);
  await expect(groupCard(page, `${word}: upstream timeout`)).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Requeue group" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Resolve…" })).toHaveCount(0);
  await expect(page.getByRole("checkbox")).toHaveCount(0);
  // The stacked row still says what the hidden columns would.
  await expect(deadRow(page, resolveIds[1]!)).toContainText("8 of 8");
  await expect(deadRow(page, resolveIds[1]!)).toContainText("transient");
  await noSidewaysScroll(page);
  await shot(page, "failures-390-support");
  // The retrying events' groups are a tab away; the dead list stays.
  await page.getByRole("link", { name: "Retrying" }).click();
  await expect(page).toHaveURL(/\/failures\?groups=retrying$/);
  await expect(page.getByRole("link", { name: "Retrying" })).toHaveAttribute("aria-current", "page");
  await expect(deadRow(page, resolveIds[1]!)).toHaveCount(1);
});

test("[ui] ops on a phone: the actions fit, the page does not scroll sideways (390)", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAt(page, "/failures", users.ops, PW);
  await expect(page.getByRole("button", { name: "Requeue group" }).first()).toBeVisible();
  await page.getByRole("checkbox", { name: `Select ${resolveIds[1]!}` }).check();
  await page.getByRole("button", { name: "Ignore…" }).click();
  await expect(page.getByRole("form", { name: "Ignore selected dead events" })).toBeVisible();
  await noSidewaysScroll(page);
  await shot(page, "failures-390");
});
