import { expect, type Page } from "@playwright/test";

export async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function signInAt(page: Page, path: string, email: string, password: string) {
  await page.goto(path);
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, email, password);
  await expect(page).not.toHaveURL(/\/sign-in/);
}

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
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
