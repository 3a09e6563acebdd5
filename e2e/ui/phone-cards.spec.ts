import { randomUUID } from "node:crypto";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

/**
 * Below the md breakpoint a table is a list of cards (components/ui/table.tsx): each row a card, each cell a
 * labelled line, so a long error and the row's actions are on screen, never behind a sideways scroll.
 */
const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const eventId = `evt_${tag}_phone`;
// A long unbroken token (a URL) is what used to widen the table past the screen.
const ERROR = `notify failed: https://billing-internal.example.com/api/v2/customers/cus_${tag}/notifications?attempt=1 answered 404`;

test.beforeAll(async () => {
  const body = JSON.stringify({ id: eventId, object: "event", type: "invoice.paid", data: { object: {} } });
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error",
    dsql`values ('stripe', ${eventId}, 'invoice.paid', ${body}::text::jsonb, ${body}, '{}'::jsonb, 'dead', 1, ${ERROR})`,
  );
  await sql`insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error, error_kind)
            values ('stripe', ${eventId}, 1, 'auto', 'worker', now() - interval '1 minute',
                    now() - interval '1 minute' + interval '20 milliseconds', 'failed', ${ERROR}, 'permanent')`;
});
test.afterAll(async () => sql.end());

/** Whether the element lies wholly within the viewport's width, without scrolling anything sideways. */
async function withinWidth(page: Page, el: Locator): Promise<boolean> {
  const box = await el.boundingBox();
  const width = page.viewportSize()!.width;
  return box !== null && box.x >= 0 && box.x + box.width <= width;
}

/** The label a cell shows beside its value in a phone's card (generated from data-label), or "none". */
const cardLabel = (cell: Locator) => cell.evaluate((el) => getComputedStyle(el, "::before").content);

/** How far each table container is wider inside than it shows (0: nothing hides behind a sideways scroll). */
const hiddenWidths = (page: Page) =>
  page
    .locator('[data-slot="table-container"]')
    .evaluateAll((els) =>
      (els as HTMLElement[]).filter((e) => e.offsetParent !== null).map((e) => e.scrollWidth - e.clientWidth),
    );

test("[ui] at 390 px an events row is a card: its outcome, the error and Requeue are on screen, labelled", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 900 });
  await signInAt(page, "/events?status=dead", E2E.admin.email, E2E.admin.password);
  const row = page.locator(`tr[data-event-id="${eventId}"]`);
  await expect(row).toBeVisible();
  expect(await hiddenWidths(page)).toEqual([0]);
  const outcome = row.locator('td[data-label="Outcome"]');
  expect(await cardLabel(outcome)).toBe('"Outcome"');
  const error = row.getByText(ERROR.slice(0, 20));
  await expect(error).toBeVisible();
  expect(await withinWidth(page, error), "the error").toBe(true);
  const requeue = row.getByRole("button", { name: "Requeue" });
  await expect(requeue).toBeVisible();
  expect(await withinWidth(page, requeue), "Requeue").toBe(true);
  await shot(page, "phone-cards-events-390");

  // A laptop still gets a table: the column header says Outcome, the cells carry no label of their own.
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page.getByRole("columnheader", { name: "Outcome" })).toBeVisible();
  expect(await cardLabel(outcome)).toBe("none");
  await expect(requeue).toBeVisible();
});

test("[ui] at 390 px the event page's attempts are cards: the error is on screen", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 900 });
  await signInAt(page, `/events/stripe/${eventId}?tab=attempts`, E2E.admin.email, E2E.admin.password);
  const attempt = page.locator('tr[data-attempt="1"]');
  await expect(attempt).toBeVisible();
  const error = attempt.getByText(ERROR.slice(0, 20)).first();
  await expect(error).toBeVisible();
  expect(await withinWidth(page, error), "the attempt's error").toBe(true);
  expect(await hiddenWidths(page)).toEqual([0]);
  expect(await cardLabel(attempt.locator('td[data-label="Outcome"]'))).toBe('"Outcome"');
  await shot(page, "phone-cards-attempts-390");
});
