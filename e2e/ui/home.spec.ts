import { expect, test } from "@playwright/test";

test("[ui] the home page lists the webhook endpoints", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Webhook Ledger" })).toBeVisible();
  await expect(page.getByText("POST /api/webhooks/stripe")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/home.png", fullPage: true });
});
