import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";

/**
 * A console URL naming nothing (an event, entity or source the ledger does not have, a page that does not
 * exist) answers 404 with the console's own page: what was not found, in words, and a search for it. The page
 * runs under the nonce CSP like every other: nothing on it is blocked.
 */
const tag = randomUUID().replaceAll("-", "").slice(0, 10);

/** CSP violations and console errors from the first script on (init scripts run outside the page's CSP). */
async function watch(page: Page) {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return async () => ({
    csp: await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp),
    cspErrors: errors.filter((e) => /Content Security Policy/i.test(e)),
  });
}

test("[ui] an unknown event says which event was not found, offers a search for it, and breaks no CSP rule", async ({
  page,
}) => {
  const seen = await watch(page);
  await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
  const id = `evt_missing_${tag}`;
  const res = await page.goto(`/events/stripe/${id}`);
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: `No event stripe/${id}` })).toBeVisible();
  // Inside the console: the navigation is still there.
  await expect(page.getByRole("link", { name: "Events" }).first()).toBeVisible();
  const search = page.getByRole("search");
  await expect(search.getByRole("searchbox")).toHaveValue(id);
  expect(await seen()).toEqual({ csp: [], cspErrors: [] });
  await shot(page, "not-found-event-1440");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(`/events?q=${id}`);
});

test("[ui] an unknown entity, source or page says what it was, at 390 px too", async ({ page }) => {
  const seen = await watch(page);
  await page.setViewportSize({ width: 390, height: 900 });
  await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
  const cases = [
    [`/entities/stripe/subscription/sub_missing${tag}`, `No subscription sub_missing${tag} from stripe`],
    [`/sources/missing-${tag}`, `No source missing-${tag}`],
    [`/nowhere-${tag}`, `No page at /nowhere-${tag}`],
  ] as const;
  for (const [path, words] of cases) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: words })).toBeVisible();
    await expect(page.getByRole("search")).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
    expect(await seen(), path).toEqual({ csp: [], cspErrors: [] });
  }
  await shot(page, "not-found-page-390");
});
