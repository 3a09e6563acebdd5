import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { stripeInvoicePaidEvent } from "../../test/fixtures/stripe";
import { signStripe } from "../../test/sign";
import { E2E } from "../env";
import { shot, signInAt } from "./helpers";

const tag = randomUUID().replaceAll("-", "").slice(0, 8);

/** The team's endpoint, a real HTTP server on loopback: it records each request and answers 200. */
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let server: Server;
let url = "";

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("<b>thanks</b>");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function noSideScroll(page: Page) {
  const { scroll, inner } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  expect(scroll, "the page must not scroll sideways").toBeLessThanOrEqual(inner);
}

for (const width of [1440, 390] as const) {
  test(`[destinations] at ${width} px an admin adds a destination, sees its secret once, tests it, and an event page shows the forward`, async ({
    page,
    request,
  }) => {
    const name = `dst-${tag}-${width}`;
    await page.setViewportSize({ width, height: 900 });
    await signInAt(page, "/destinations", E2E.admin.email, E2E.admin.password);
    await expect(page.getByRole("heading", { name: "Destinations", level: 1 })).toBeVisible();

    // A bad URL: said inline, and what was typed stays.
    await page.getByRole("button", { name: "Add a destination" }).click();
    const form = page.getByRole("form", { name: "Add a destination" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("URL").fill("ftp://example.com/");
    await form.getByLabel("Sources").fill("stripe");
    await form.getByLabel("Event types").fill("invoice.*");
    await form.getByRole("button", { name: "Add destination" }).click();
    await expect(form.getByRole("alert")).toContainText("an http:// or https:// URL");
    await expect(form.getByLabel("Name")).toHaveValue(name);

    await form.getByLabel("URL").fill(url);
    await form.getByRole("button", { name: "Add destination" }).click();
    const issued = page.getByTestId("issued");
    await expect(issued).toContainText("it will not be shown again");
    const secret = (await issued.getByTestId("issued-secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const fingerprint = (await issued.getByTestId("issued-fingerprint").textContent()) ?? "";
    await noSideScroll(page);
    await shot(page, `destinations-added-${width}`);
    await page.getByRole("button", { name: "Done" }).click();
    await expect(issued).toHaveCount(0);

    // Afterwards only its fingerprint, on this page and after a reload.
    const card = page.locator(`article[data-destination="${name}"]`);
    await expect(card.locator(`[data-fingerprint="${fingerprint}"]`)).toBeVisible();
    await page.reload();
    await expect(card.locator("[data-destination-state]")).toHaveText("active");
    await expect(card.getByTestId("url")).toHaveText(url);
    expect(await page.content()).not.toContain(secret);

    const before = received.length;
    await card.getByRole("button", { name: "Send a test delivery" }).click();
    const result = card.getByTestId("test-delivery");
    await expect(result.locator("[data-status]")).toHaveText("200");
    // The destination's answer is shown as text, never as markup.
    await expect(result.locator("pre")).toHaveText("<b>thanks</b>");
    expect(received.length).toBe(before + 1);
    const got = received.at(-1)!;
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: "ledger.test",
    });
    await noSideScroll(page);
    await shot(page, `destinations-tested-${width}`);

    // A real event, forwarded by the app's forwarder: its page says so.
    const eventId = `evt_dst_${tag}_${width}`;
    const delivery = signStripe(JSON.stringify(stripeInvoicePaidEvent({ eventId })), "whsec_e2e_stripe");
    expect(
      (await request.post("/api/webhooks/stripe", { headers: delivery.headers, data: delivery.body })).status(),
    ).toBe(200);
    await expect
      .poll(() => received.some((r) => (JSON.parse(r.body) as { id?: string }).id === eventId), { timeout: 30_000 })
      .toBe(true);
    await page.goto(`/events/stripe/${eventId}`);
    const forward = page.locator(`li[data-forward="${name}"]`);
    await expect(async () => {
      await page.reload();
      await expect(forward.locator("[data-forward-status]")).toHaveText("forwarded", { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(forward).toContainText("after 1 attempt");
    await forward.getByText("1 attempt", { exact: true }).click();
    await expect(forward.locator("[data-forward-attempt]")).toContainText("200");
    await noSideScroll(page);
    await shot(page, `destinations-event-forward-${width}`);

    // Paused at the end, asked first, so the forwards of other specs' events do not go to a closed server.
    await page.goto("/destinations");
    await card.getByRole("button", { name: "Pause…" }).click();
    const dialog = page.getByRole("alertdialog");
    await expect(dialog).toContainText("sends none until it is resumed");
    await dialog.getByRole("button", { name: `Pause ${name}` }).click();
    await expect(card.locator("[data-destination-state]")).toHaveText("paused");
  });
}
