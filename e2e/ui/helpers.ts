import { expect, type Cookie, type Page } from "@playwright/test";

export async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

// A sign-in costs a password hash (slow on purpose) and two page loads, in most tests. Each Playwright worker signs
// an account in once and gives later tests its session cookie; after a test that ended that session (a sign-out)
// the next one signs in afresh. The redirect and the form are tested in auth.spec.ts.
const sessions = new Map<string, Cookie[]>();
const onSignIn = (page: Page) => new URL(page.url()).pathname === "/sign-in";

/** Opens `path` signed in as `email`: with this worker's session for it if it is still live, else through the form. */
export async function signInAt(page: Page, path: string, email: string, password: string) {
  const saved = sessions.get(email);
  if (saved) await page.context().addCookies(saved);
  await page.goto(path);
  if (saved && !onSignIn(page)) return;
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, email, password);
  await expect(page).not.toHaveURL(/\/sign-in/);
  sessions.set(
    email,
    (await page.context().cookies()).filter((c) => c.name.startsWith("ledger.")),
  );
}

/**
 * A full-page screenshot in test-results/screens/ for a person to look at, taken only under `npm run screens`
 * (LEDGER_SCREENS=1): they assert nothing, and encoding one was about a quarter of the browser's work for a page.
 */
export async function shot(page: Page, name: string) {
  if (process.env.LEDGER_SCREENS) await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
}

/** Adds a user through the admin's Users page (the page must be signed in as admin). */
export async function addUser(admin: Page, email: string, role: "support" | "ops" | "admin", password: string) {
  await admin.goto("/users");
  await admin.getByLabel("Email").fill(email);
  await admin.getByLabel("Initial password").fill(password);
  await admin.getByLabel("Role").first().selectOption(role);
  await admin.getByRole("button", { name: "Add user" }).click();
  await expect(admin.getByRole("status")).toHaveText("User added.");
}
