import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { shot, signIn, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

const sql = e2eSql();
test.afterAll(async () => sql.end());
const { email: ADMIN, password: ADMIN_PW } = E2E.admin;

test("[ui] an unauthenticated console URL redirects to /sign-in and back after signing in", async ({ page }) => {
  await page.goto("/audit");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Faudit$/);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await shot(page, "sign-in");
  await signIn(page, ADMIN, ADMIN_PW);
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
});

test("[ui] a wrong password is refused with a clear message that does not say which part was wrong", async ({
  page,
}) => {
  await page.goto("/sign-in");
  for (const [email, password] of [
    [ADMIN, "not the password"],
    ["nobody@e2e.example", ADMIN_PW],
  ] as const) {
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/auth/sign-in/email"));
    await signIn(page, email, password);
    expect((await answered).status()).toBe(401);
    await expect(page.locator("form").getByRole("alert")).toHaveText("Wrong email or password.");
  }
  await shot(page, "sign-in-wrong-password");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("[ui] repeated failures for one account are slowed down", async ({ page }) => {
  const email = `target-${randomUUID().slice(0, 8)}@e2e.example`;
  await page.goto("/sign-in");
  for (let i = 0; i < 5; i++) {
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/auth/sign-in/email"));
    await signIn(page, email, `guess number ${i}`);
    expect((await answered).status()).toBe(401);
    await expect(page.locator("form").getByRole("alert")).toHaveText("Wrong email or password.");
  }
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/auth/sign-in/email"));
  await signIn(page, email, "guess number 6");
  expect((await answered).status()).toBe(429);
  await expect(page.locator("form").getByRole("alert")).toHaveText(/Too many sign-in attempts/);
});

test("[ui] sign out ends the session: the console sends you back to sign-in", async ({ page }) => {
  await signInAt(page, "/", ADMIN, ADMIN_PW);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await page.goto("/events");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fevents/);
});

test("[ui] a session ended elsewhere, its cookie still sent, goes to sign-in and back to the page asked for", async ({
  page,
}) => {
  await signInAt(page, "/", ADMIN, ADMIN_PW);
  const ended = await page.context().cookies();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  // As a second tab would after a sign-out in the first, or a browser after the session expired.
  await page.context().addCookies(ended);
  await page.goto("/events?status=dead");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fevents%3Fstatus%3Ddead$/);
  await signIn(page, ADMIN, ADMIN_PW);
  await expect(page).toHaveURL(/\/events\?status=dead$/);
});

test("[ui] an admin adds a support user who can sign in but cannot reach Users", async ({ page, browser }) => {
  const email = `support-${randomUUID().slice(0, 8)}@e2e.example`;
  await signInAt(page, "/users", ADMIN, ADMIN_PW);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Initial password").fill("support password 123");
  await page.getByLabel("Role").first().selectOption("support");
  await page.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByRole("status")).toHaveText("User added.");
  await expect(page.locator(`tr[data-user="${email}"]`)).toContainText("active");
  // Added: the form starts blank for the next one.
  await expect(page.getByLabel("Email")).toHaveValue("");
  await shot(page, "users");
  // Refused (the email is taken): the error is said and what was typed is kept to correct.
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Initial password").fill("support password 123");
  await page.getByRole("button", { name: "Add user" }).click();
  await expect(page.locator("main form").getByRole("alert")).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue(email);

  const support = await browser.newPage();
  await signInAt(support, "/", email, "support password 123");
  await expect(support.getByRole("link", { name: "Users" })).toHaveCount(0);
  const res = await support.goto("/users");
  expect(res?.status()).toBe(403);
  await expect(support.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  await expect(support.getByText(ADMIN)).toHaveCount(0);
  await shot(support, "forbidden");
  await support.close();
});

test("[ui] a server action called directly as support for an ops verb is refused and changes nothing", async ({
  page,
  browser,
}) => {
  const eventId = `evt_dead_${randomUUID().slice(0, 8)}`;
  await seedEventsAt(
    E2E.databaseUrl,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error",
    dsql`values ('stripe', ${eventId}, 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, 'dead', 8, 'downstream timeout')`,
  );
  // As admin, click Requeue but capture the server action request instead of letting it through.
  await signInAt(page, "/events?status=dead", ADMIN, ADMIN_PW);
  let captured: { headers: Record<string, string>; body: string } | undefined;
  await page.route("**/events*", async (route) => {
    const req = route.request();
    if (req.method() === "POST" && req.headers()["next-action"]) {
      captured = { headers: req.headers(), body: req.postData() ?? "" };
      await route.abort();
    } else await route.continue();
  });
  await page.locator(`tr[data-event-id="${eventId}"]`).getByRole("button", { name: "Requeue" }).click();
  await expect.poll(() => captured).toBeDefined();

  const support = await browser.newPage();
  const email = `support-${randomUUID().slice(0, 8)}@e2e.example`;
  await sql`select 1`; // the support user is made through the admin UI's verb below
  await page.unroute("**/events*");
  await page.goto("/users");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Initial password").fill("support password 123");
  await page.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByRole("status")).toHaveText("User added.");
  await signInAt(support, "/events?status=dead", email, "support password 123");
  await expect(support.locator(`tr[data-event-id="${eventId}"]`).getByRole("button", { name: "Requeue" })).toHaveCount(
    0,
  );

  const res = await support.request.post("/events?status=dead", {
    headers: {
      "next-action": captured!.headers["next-action"]!,
      "content-type": captured!.headers["content-type"] ?? "text/plain;charset=UTF-8",
      accept: "text/x-component",
    },
    data: captured!.body,
  });
  expect(res.status()).toBe(200);
  expect(await res.text()).toContain("Not allowed: support may not events: requeue (needs ops)");
  expect(await sql`select status from webhook_event where event_id = ${eventId}`).toEqual([{ status: "dead" }]);
  expect(await sql`select actor_email, result from audit_log where target = ${`event:stripe/${eventId}`}`).toEqual([
    { actor_email: email, result: "refused" },
  ]);
  await support.close();
});

/** How far the document is wider than the viewport (0 when nothing scrolls sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test("[ui] sign-in and setup fit a phone; setup, once an admin exists, says so and links to sign-in", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto("/sign-in");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  expect(await overflow(page)).toBe(0);
  await shot(page, "sign-in-390");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, "sign-in-390-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // The e2e server created its admin from ADMIN_EMAIL: no link works, and none will be printed.
  for (const path of ["/setup", "/setup?token=anything"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: "Setup is done" })).toBeVisible();
    await expect(page.getByText("An admin already exists")).toBeVisible();
    await expect(page.getByText(/restart/i)).toHaveCount(0);
    expect(await overflow(page)).toBe(0);
  }
  await shot(page, "setup-390");
  await page.getByRole("link", { name: "Go to sign-in" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("[ui] Users counts in words and shows the password rules it enforces; Account shows them too; both fit a phone", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAt(page, "/users", ADMIN, ADMIN_PW);
  const count = (await sql`select count(*)::int as n from auth_user`)[0]!.n as number;
  await expect(page.getByRole("heading", { name: count === 1 ? "1 user" : `${count} users` })).toBeVisible();
  await expect(page.locator("main")).not.toContainText(/\b1 users\b/);
  await expect(page.locator("main")).toContainText("12 to 256 characters");
  await expect(page.getByLabel("Initial password")).toHaveAttribute("minlength", "12");
  // Too short: the server's rule answers with the same number (the browser's own check is bypassed).
  await page.getByLabel("Initial password").evaluate((el) => el.removeAttribute("minlength"));
  await page.getByLabel("Email").fill(`short-${randomUUID().slice(0, 8)}@e2e.example`);
  await page.getByLabel("Initial password").fill("too short");
  await page.getByRole("button", { name: "Add user" }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText("Password must be at least 12 characters");
  expect(await overflow(page)).toBe(0);
  await shot(page, "users-1440");

  await page.setViewportSize({ width: 390, height: 900 });
  await page.reload();
  expect(await overflow(page)).toBe(0);
  // Every row's role menu and Disable/Enable are on screen, not behind a sideways scroll.
  const offScreen = await page.locator("tbody tr").evaluateAll((rows) =>
    rows.flatMap((r) =>
      [...r.querySelectorAll<HTMLElement>("select, button")]
        .filter((el) => {
          const box = el.getBoundingClientRect();
          return box.width === 0 || box.left < 0 || box.right > window.innerWidth;
        })
        .map((el) => `${r.dataset.user}: ${el.textContent?.trim() || el.tagName}`),
    ),
  );
  expect(offScreen).toEqual([]);
  await shot(page, "users-390");

  await page.goto("/account");
  await expect(page.getByRole("heading", { name: "Change password" })).toBeVisible();
  await expect(page.locator("main")).toContainText("12 to 256 characters");
  expect(await overflow(page)).toBe(0);
  await shot(page, "account-390");
});
