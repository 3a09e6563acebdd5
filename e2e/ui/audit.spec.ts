import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { addUser, shot, signIn, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
/** The seeded rows' actor: nothing else in the run acts as them, so a filter on them is exact. */
const actor = `auditor-${tag}@e2e.example`;
const linkedEvent = `evt_${tag}_audited`;

/** How far the document is wider than the viewport (0 when nothing scrolls sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const shownActions = (page: Page) => page.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.action));
const shownIds = (page: Page) => page.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.auditId));

test.beforeAll(async () => {
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts",
    dsql`values ('stripe', ${linkedEvent}, 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, 'settled', 1)`,
  );
  // 60 requeues by the seeded actor (one page of 50 and an older one of 10) and 5 of another action, a
  // second apart; the newest requeue targets a real event.
  await sql`
    insert into audit_log (at, actor_id, actor_email, action, target, detail, result)
    select now() - i * interval '1 second', null, ${actor},
           case when i % 13 = 0 then 'users.create' else 'events.requeue' end,
           case when i = 1 then ${`event:stripe/${linkedEvent}`} else 'event:stripe/evt_' || ${tag} || '_' || i end,
           jsonb_build_object('seq', i),
           'ok'
    from generate_series(1, 65) as i`;
});

test.afterAll(async () => sql.end());

test("[ui] the audit log filters by actor and action in a clean URL, pages to older and back, and links to targets", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAt(page, "/audit", E2E.admin.email, E2E.admin.password);
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();

  await page.getByLabel("Actor").fill(actor);
  await page.getByLabel("Action").selectOption("events.requeue");
  await page.getByRole("button", { name: "Apply" }).click();
  // Only the filled fields are in the URL: no result=, from=, to=.
  await expect(page).toHaveURL(`/audit?actor=${encodeURIComponent(actor)}&action=events.requeue`);
  await expect(page.locator("tbody tr")).toHaveCount(50);
  expect(new Set(await shownActions(page))).toEqual(new Set(["events.requeue"]));
  await expect(page.locator("tbody tr").first()).toContainText(actor);
  const firstPage = await shownIds(page);
  await shot(page, "audit-1440");
  expect(await overflow(page)).toBe(0);

  await page.getByRole("link", { name: "Older" }).click();
  await expect(page).toHaveURL(/\/audit\?actor=.+&action=events\.requeue&before=[\w-]+$/);
  await expect(page.locator("tbody tr")).toHaveCount(10);
  const olderPage = await shownIds(page);
  expect(olderPage.some((id) => firstPage.includes(id))).toBe(false);
  await expect(page.getByRole("link", { name: "Older" })).toHaveCount(0);

  await page.getByRole("link", { name: "Newer" }).click();
  await expect(page).toHaveURL(`/audit?actor=${encodeURIComponent(actor)}&action=events.requeue`);
  expect(await shownIds(page)).toEqual(firstPage);

  // The newest requeue's target is a real event: its link opens the event.
  await page.getByRole("link", { name: `stripe/${linkedEvent}` }).click();
  await expect(page).toHaveURL(`/events/stripe/${linkedEvent}`);
  await expect(page.getByRole("heading", { name: linkedEvent })).toBeVisible();

  // The same view on a phone: no sideways scroll, the target still reachable.
  await page.setViewportSize({ width: 390, height: 900 });
  await page.goto(`/audit?actor=${encodeURIComponent(actor)}`);
  await expect(page.locator("tbody tr")).toHaveCount(50);
  expect(await overflow(page)).toBe(0);
  await expect(page.getByRole("link", { name: `stripe/${linkedEvent}` })).toBeVisible();
  await shot(page, "audit-390");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, "audit-390-dark");
});

test("[ui] each entry says what was done in words, links what it concerns, and keeps the raw detail under Details", async ({
  page,
}) => {
  const wordsActor = `words-${tag}@e2e.example`;
  const [kept, gone] = [`stripe/${linkedEvent}`, `stripe/evt_${tag}_gone`];
  await sql`insert into audit_log (actor_id, actor_email, action, target, detail, result) values
    (null, ${wordsActor}, 'events.resolve-dead', 'events',
     ${sql.json({ resolution: "resolved", note: "refunded by hand", selected: 2, keys: [kept, gone], count: 1, notDead: [gone] })}, 'ok'),
    (null, ${wordsActor}, 'users.set-role', ${`user:ana-${tag}@e2e.example`}, ${sql.json({ from: "support", to: "ops" })}, 'ok')`;
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await signInAt(page, `/audit?actor=${encodeURIComponent(wordsActor)}`, E2E.admin.email, E2E.admin.password);
    const resolved = page.locator('tr[data-action="events.resolve-dead"]');
    await expect(resolved.locator("[data-sentence]")).toHaveText(
      `Marked dead event ${kept} resolved by hand: “refunded by hand”; ${gone} was no longer dead`,
    );
    await expect(resolved.getByRole("link", { name: `stripe/${linkedEvent}` }).first()).toHaveAttribute(
      "href",
      `/events/stripe/${linkedEvent}`,
    );
    await expect(page.locator('tr[data-action="users.set-role"] [data-sentence]')).toHaveText(
      `Changed the role of ana-${tag}@e2e.example from support to ops`,
    );
    // No JSON in the sentence; the row as written is one click away.
    const raw = resolved.locator("details pre");
    await expect(raw).toBeHidden();
    await resolved.getByText("Details", { exact: true }).click();
    await expect(raw).toBeVisible();
    await expect(raw).toContainText('"notDead": [');
    expect(await overflow(page), `${width}px`).toBe(0);
    await shot(page, `audit-words-${width}`);
    await page.context().clearCookies();
  }
});

test("[ui] a URL with empty fields is redirected to the clean one; a forged page link says so and offers the newest page", async ({
  page,
}) => {
  await signInAt(
    page,
    `/audit?actor=${encodeURIComponent(actor)}&action=&result=&from=&to=`,
    E2E.admin.email,
    E2E.admin.password,
  );
  await expect(page).toHaveURL(`/audit?actor=${encodeURIComponent(actor)}`);
  await expect(page.locator("tbody tr")).toHaveCount(50);

  await page.goto(`/audit?actor=${encodeURIComponent(actor)}&before=forged-cursor`);
  const alert = page.locator("main").getByRole("alert");
  await expect(alert).toContainText("This view cannot be shown (400)");
  await expect(alert).toContainText("page link is damaged");
  await alert.getByRole("link", { name: "Start again from the newest entries" }).click();
  await expect(page).toHaveURL(`/audit?actor=${encodeURIComponent(actor)}`);
  await expect(page.locator("tbody tr")).toHaveCount(50);

  await page.goto("/audit?from=yesterday");
  await expect(page.locator("main").getByRole("alert")).toContainText('From: "yesterday" is not a UTC date and time');
});

test("[ui] a sign-in, a failed sign-in and a sign-out each appear in the audit log", async ({ page, browser }) => {
  const email = `signs-in-${tag}@e2e.example`;
  const password = "signs in password 1";
  await signInAt(page, "/users", E2E.admin.email, E2E.admin.password);
  await addUser(page, email, "support", password);

  const other = await browser.newPage();
  await other.goto("/sign-in");
  const refused = other.waitForResponse((r) => r.url().endsWith("/api/auth/sign-in/email"));
  await signIn(other, email, "not the password at all");
  expect((await refused).status()).toBe(401);
  // The refusal is said, and what the person typed is kept (a form action would have reset it).
  await expect(other.locator("form").getByRole("alert")).toHaveText("Wrong email or password.");
  await expect(other.getByLabel("Email")).toHaveValue(email);
  await signIn(other, email, password);
  // A sign-in now writes its audit row before it answers: on a loaded machine that can take a few seconds.
  await expect(other).not.toHaveURL(/\/sign-in/, { timeout: 30_000 });
  await other.getByRole("button", { name: "Sign out" }).first().click();
  await expect(other).toHaveURL(/\/sign-in/);
  await other.close();

  await page.goto(`/audit?actor=${encodeURIComponent(email)}`);
  await expect.poll(() => shownActions(page)).toEqual(["auth.sign-out", "auth.sign-in"]);
  await page.goto(`/audit?action=auth.sign-in-failed&result=refused`);
  const failed = page.locator("tbody tr", { hasText: `user:${email}` });
  await expect(failed).toHaveCount(1);
  await expect(failed).toContainText("wrong email or password");
  await expect(failed).toContainText("anonymous");
  await expect(page.locator("main")).not.toContainText("not the password at all");
});
