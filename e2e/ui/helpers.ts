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
