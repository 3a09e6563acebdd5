import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { stripeInvoicePaidEvent } from "../../test/fixtures/stripe";
import { signStripe } from "../../test/sign";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";

const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const customerId = `cus_Erase${tag}`;
const sql = e2eSql();
test.afterAll(async () => {
  await sql.end();
});

async function noSideScroll(page: Page) {
  const { scroll, inner } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  expect(scroll, "the page must not scroll sideways").toBeLessThanOrEqual(inner);
}

const VIEWS = [
  [1440, "light"],
  [390, "light"],
  [1440, "dark"],
  [390, "dark"],
] as const;

async function shots(page: Page, name: string) {
  for (const [width, scheme] of VIEWS) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await noSideScroll(page);
    await shot(page, `${name}-${width}${scheme === "dark" ? "-dark" : ""}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 720 });
}

test("[ui] the alerts page shows channels, rules and an admin's rule controls at every width", async ({ page }) => {
  // A firing and a resolved incident, and a message that gave up and one still retrying, to see the tables.
  await sql`insert into alert_incident (rule, subject, state, summary, opened_at, resolved_at, resolution) values
    ('backlog_age', ${`backlog-${tag}`}, 'firing', 'The oldest pending event has waited 42 minutes (threshold 15)', now() - interval '40 minutes', null, null),
    ('source_silent', ${`source:shop-${tag}`}, 'resolved', ${`Source shop-${tag} had no delivery for 6 hours`},
     now() - interval '7 hours', now() - interval '1 hour', 'a delivery arrived')`;
  const [note] = await sql`insert into alert_notification (rule, kind, summary, incident_ids, payload)
    values ('backlog_age', 'firing', 'Backlog older than 15 minutes: 1 firing', '{}', '{}'::jsonb) returning id`;
  await sql`insert into alert_delivery (notification_id, channel, status, attempts, next_attempt_at, last_status, last_error, created_at) values
    (${note!.id}, 'webhook', 'failed', 8, now(), 503, 'the endpoint answered 503 Service Unavailable', now() - interval '30 minutes'),
    (${note!.id}, 'slack', 'pending', 2, now() + interval '10 minutes', null, 'connect ECONNREFUSED 127.0.0.1:9', now() - interval '5 minutes')`;
  await signInAt(page, "/alerts", E2E.admin.email, E2E.admin.password);
  await expect(page.getByRole("heading", { name: "Alerts", level: 1 })).toBeVisible();
  await expect(page.locator("article[data-channel]")).not.toHaveCount(0);
  const rule = page.locator('article[data-rule="dead_event"]');
  await expect(rule.getByTestId("enabled")).toHaveText(/^(on|off)$/);
  await expect(rule.getByRole("button", { name: "Save" })).toBeVisible();
  await expect(page.locator("tr[data-incident]")).not.toHaveCount(0);
  await expect(page.locator("tr[data-delivery]")).not.toHaveCount(0);
  await shots(page, "alerts");
});

test("[ui] erasure previews the count, asks before erasing, and erases exactly those events", async ({
  page,
  request,
}) => {
  const event = stripeInvoicePaidEvent({ eventId: `evt_erase_${tag}`, customerId, created: 1_712_950_000 });
  const d = signStripe(JSON.stringify(event), "whsec_e2e_stripe");
  expect((await request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body })).status()).toBe(200);

  await signInAt(page, "/erasure", E2E.admin.email, E2E.admin.password);
  await page.getByLabel("Customer id or email").fill(customerId);
  await page.getByLabel("Request reference").fill(`ticket-${tag}`);
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByTestId("erasure-preview")).toContainText("1 events mention this subject");
  // What was typed stays after the preview.
  await expect(page.getByLabel("Customer id or email")).toHaveValue(customerId);

  // First click asks; Cancel leaves everything as it was.
  await page.getByRole("button", { name: "Erase 1 events…" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("cannot be brought back");
  await shots(page, "erasure");
  await page.getByRole("alertdialog").getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);

  await page.getByRole("button", { name: "Erase 1 events…" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Erase 1 events" }).click();
  await expect(page.getByRole("status")).toHaveText("Erased 1 events. The audit log has the record.");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByTestId("erasure-preview")).toContainText("0 events mention this subject");
});
