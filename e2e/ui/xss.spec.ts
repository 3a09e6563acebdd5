import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { githubIssuesOpened } from "../../test/fixtures/github";
import { paddleSubscriptionEvent } from "../../test/fixtures/paddle";
import { shopifyOrder } from "../../test/fixtures/shopify";
import { slackEventCallback } from "../../test/fixtures/slack";
import { standardEvent } from "../../test/fixtures/standard";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import {
  signGithub,
  signPaddle,
  signShopify,
  signSlack,
  signStandard,
  signStripe,
  type Delivery,
} from "../../test/sign";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

/**
 * Stored XSS through everything a sender or a person controls: signed deliveries from six providers whose
 * ids, types, header values, payload keys and values, customer names and emails carry hostile markup; a
 * user with a hostile name; audit and replay rows that echo them; filters and a search set to them.
 * Every console page that shows them must show them as text: nothing runs (window.__xss stays unset, no
 * dialog, no CSP script violation), nothing hostile is in the DOM as an element, an event handler
 * attribute or a javascript: link, and the literal text is on the page.
 */
const sql = e2eSql();
test.afterAll(async () => sql.end());

const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const H = {
  script: "<script>window.__xss=1</script>",
  img: '"><img src=x onerror="window.__xss=1">',
  js: "javascript:window.__xss=1",
  svg: "</textarea><svg onload=window.__xss=1>",
  tpl: "{{constructor.constructor('window.__xss=1')()}}",
  rtl: "\u202Eexe.\u202C\u2066txt\u2069",
};
const ALL = Object.values(H).join(" ");
/** Markup-rich keys and values for a payload's free-form corner (metadata, custom_data). */
const HOSTILE_BAG = {
  [H.script]: H.js,
  [H.img]: H.svg,
  [H.tpl]: H.rtl,
  href: H.js,
  url: H.js,
  website: H.js,
  note: ALL,
};

// The events, each carrying hostile strings in what its provider lets a sender choose.
const ids = {
  stripeSub: `evt_${tag}_s${H.script}`,
  stripeOdd: `evt_${tag}_o${H.img}`,
  stripeInvoice: `evt_${tag}_i${H.svg}`,
  github: `${tag}-gh${H.img}`,
  shopify: `${tag}-sh${H.svg}`,
  paddle: `evt_${tag}_p${H.tpl}`,
  standard: `msg_${tag}${H.img}`,
  slack: `Ev${tag}${H.svg}`,
  dead: `evt_${tag}_dead${H.img}`,
  /** Requeued by the admin below: its audit row's target is hostile. */
  requeued: `evt_${tag}_rq${H.svg}`,
};
const subscriptionId = `sub_${tag}${H.img}`;
const customer = `${H.img}${tag}`;
const oddEntity = { type: H.svg, id: `${H.js}//${tag}` };
const githubType = `issues.opened${H.script}`;
const paddleSubscription = `sub_${tag}${H.script}`;
const slackChannel = `C${tag}${H.img}`;
const hostileName = `${H.script}${H.img}`.slice(0, 100);
const replayActor = `${H.script}@replay-${tag}`;

async function deliver(
  request: APIRequestContext,
  source: string,
  d: Delivery,
  extraHeaders: Record<string, string> = {},
) {
  const res = await request.post(`/api/webhooks/${source}`, {
    headers: { ...d.headers, ...extraHeaders },
    data: d.body,
  });
  expect(res.status(), `${source}: ${await res.text()}`).toBe(200);
}

/** Headers a sender adds besides the signature: stored and shown as received. */
const HOSTILE_HEADERS = { "x-hostile-note": H.img, "x-hostile-link": H.js, "user-agent": `${H.script} ${H.svg}` };

test.beforeAll(async ({ browser, request }) => {
  test.setTimeout(120_000);
  const sub = stripeSubscriptionEvent({
    eventId: ids.stripeSub,
    created: 2_000_000,
    subscriptionId,
    customerId: customer,
    status: H.svg,
  });
  Object.assign(sub.data.object as Record<string, unknown>, { description: ALL, metadata: HOSTILE_BAG });
  await deliver(request, "stripe", signStripe(JSON.stringify(sub), "whsec_e2e_stripe"), HOSTILE_HEADERS);

  const odd = {
    id: ids.stripeOdd,
    object: "event",
    type: `${H.img}.created`,
    created: 2_000_001,
    data: { object: { object: oddEntity.type, id: oddEntity.id, [H.script]: HOSTILE_BAG } },
  };
  await deliver(request, "stripe", signStripe(JSON.stringify(odd), "whsec_e2e_stripe"));

  const invoice = stripeInvoicePaidEvent({
    eventId: ids.stripeInvoice,
    customerId: `cus_${tag}Inv`,
    customerEmail: `xss+${tag}@example.com`,
    invoiceId: `in_1Xss${tag}`,
  });
  Object.assign(invoice.data.object as Record<string, unknown>, {
    customer_name: `${H.script} ${H.rtl}`,
    hosted_invoice_url: H.js,
    description: ALL,
  });
  await deliver(request, "stripe", signStripe(JSON.stringify(invoice), "whsec_e2e_stripe"));

  const issue = {
    // The tag keeps each seeding's body its own: GitHub's delivery id is not signed, so a body seen before under
    // another id is a duplicate (a second worker's seeding would be one).
    ...githubIssuesOpened({
      title: `${ALL} ${tag}`,
      body: `${H.script}\n${H.img}\n[x](${H.js})`,
      author: { login: H.svg },
    }),
    action: `opened${H.script}`,
  };
  await deliver(
    request,
    "github",
    await signGithub(JSON.stringify(issue), "e2e-github", { delivery: ids.github, event: "issues" }),
    HOSTILE_HEADERS,
  );

  const order = {
    ...shopifyOrder({
      id: 5_745_183_776_802 + Number.parseInt(tag.slice(0, 6), 16),
      email: H.img,
      updatedAt: "2026-01-02T10:00:00-04:00",
    }),
    name: H.script,
    note: ALL,
    note_attributes: [{ name: H.img, value: H.js }],
  };
  await deliver(
    request,
    "shopify",
    signShopify(JSON.stringify(order), "e2e-shopify", { webhookId: ids.shopify, topic: "orders/updated" }),
  );

  const paddle = paddleSubscriptionEvent({
    eventId: ids.paddle,
    subscriptionId: paddleSubscription,
    customerId: `ctm_${tag}${H.tpl}`,
    status: H.tpl,
  });
  (paddle.data as Record<string, unknown>).custom_data = HOSTILE_BAG;
  await deliver(request, "paddle", signPaddle(JSON.stringify(paddle), "pdl_ntfset_e2e"));

  const standard = {
    ...standardEvent({ type: `${H.script}.created`, id: H.js, email: `${H.img}@example.com`, status: H.svg }),
    [H.tpl]: HOSTILE_BAG,
  };
  await deliver(
    request,
    "standard",
    signStandard(JSON.stringify(standard), E2E.secrets.STANDARD_WEBHOOK_SECRET, { id: ids.standard }),
  );

  const slack = slackEventCallback({ eventId: ids.slack, channel: slackChannel, user: H.img, text: ALL });
  (slack.event as Record<string, unknown>).type = H.tpl;
  await deliver(request, "slack", signSlack(JSON.stringify(slack), "e2e-slack"));

  // A dead event (as the worker leaves one) whose type and last error are hostile: the overview lists it.
  for (const id of [ids.dead, ids.requeued]) {
    const deadBody = JSON.stringify({ id, type: `${H.script}.failed`, note: ALL });
    await seedEventsAt(
      E2E.databaseUrl,
      "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error",
      dsql`values ('stripe', ${id}, ${`${H.script}.failed`}, ${deadBody}::text::jsonb, ${deadBody}, '{}'::jsonb, 'dead', 8, ${`downstream said: ${ALL}`})`,
    );
  }
  // Rows other writers leave: an audit row (every column a string someone chose) and a failed replay.
  await sql`insert into audit_log (actor_id, actor_email, action, target, detail, result, error)
            values (null, ${`${H.script}@audit`}, ${`x.${H.svg}`}, ${`event:stripe/${H.img}`}, ${sql.json({ [H.script]: H.js, note: ALL })}, 'error', ${ALL})`;
  await sql`insert into replay_run (actor, source, since, until, types, status, last_error, finished_at)
            values (${replayActor}, 'stripe', now() - interval '1 day', now(), ${[H.img, H.svg, H.tpl]}, 'failed', ${ALL}, now())`;

  // Every delivery weighed by the embedded worker (applied, ignored or failed), so the timelines are written.
  await expect
    .poll(
      async () =>
        (
          await sql`select count(*)::int as n from webhook_event where position(${tag} in event_id) > 0 and status in ('claimed', 'processing')`
        )[0]?.n,
      { timeout: 30_000 },
    )
    .toBe(0);

  // An admin adds a user with a hostile name, through the Users page, and requeues the hostile dead event.
  const admin = await browser.newPage();
  await signInAt(admin, "/users", E2E.admin.email, E2E.admin.password);
  await admin.getByLabel("Email").fill(`xss-${tag}@e2e.example`);
  await admin.getByLabel("Name").fill(hostileName);
  await admin.getByLabel("Initial password").fill("xss user password 1");
  await admin.getByRole("button", { name: "Add user" }).click();
  await expect(admin.getByRole("status")).toHaveText("User added.");
  await admin.goto(`/events/stripe/${encodeURIComponent(ids.requeued)}`);
  await admin.getByRole("button", { name: "Requeue" }).click();
  await admin.getByRole("alertdialog").getByRole("button", { name: "Requeue event" }).click();
  await expect(admin.getByRole("status")).toContainText("Requeued");
  await admin.close();
});

/** Records what would show that a payload ran: a dialog, a CSP script violation. */
async function watch(page: Page) {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss().catch(() => {});
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __cspScript: string[] };
    w.__cspScript = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      if (e.effectiveDirective.startsWith("script-src"))
        w.__cspScript.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`);
    });
  });
  return dialogs;
}

/** What would show that a payload ran or became markup: handler attributes, injected img/svg/script, javascript: URLs. */
async function inspect(page: Page) {
  await page.waitForLoadState("load");
  return page.evaluate(() => {
    const w = window as unknown as { __xss?: unknown; __cspScript?: string[] };
    const all = [...document.querySelectorAll("*")];
    const handlers = all
      .filter((el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith("on")))
      .map((el) => el.outerHTML.slice(0, 120));
    const urlAttrs = ["href", "src", "action", "formaction", "xlink:href", "data", "srcdoc"];
    const jsUrls = all
      .flatMap((el) => urlAttrs.map((n) => el.getAttribute(n)).filter((v): v is string => v !== null))
      .filter((v) =>
        v
          .replace(/[\u0000-\u0020]/g, "")
          .toLowerCase()
          .startsWith("javascript:"),
      );
    const injected = [
      ...document.querySelectorAll('img[src="x"], svg[onload], main script, main iframe, main object, main embed'),
    ].map((el) => el.outerHTML.slice(0, 120));
    const scripts = [...document.scripts].filter(
      (s) => !s.src && s.textContent?.trim().startsWith("window.__xss"),
    ).length;
    // The watcher is installed by addInitScript; its absence would make the CSP check vacuous.
    return {
      xss: w.__xss,
      csp: w.__cspScript ?? ["(the CSP watcher is not installed)"],
      handlers,
      jsUrls,
      injected,
      scripts,
    };
  });
}

async function expectInert(page: Page, dialogs: string[], where: string) {
  expect(await inspect(page), where).toEqual({
    xss: undefined,
    csp: [],
    handlers: [],
    jsUrls: [],
    injected: [],
    scripts: 0,
  });
  expect(dialogs, where).toEqual([]);
}

/** A CSS attribute-selector string for an id with quotes in it (JSON's \" and \\ escapes are CSS's too). */
const cssString = (value: string) => JSON.stringify(value);
const eventPath = (source: string, id: string) => `/events/${source}/${encodeURIComponent(id)}`;
const entityPath = (source: string, type: string, id: string) =>
  `/entities/${source}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;

test("[ui][xss] hostile deliveries render as text on the overview, the events list and its filters", async ({
  page,
}) => {
  const dialogs = await watch(page);
  await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
  await expectInert(page, dialogs, "overview");
  await expect(page.locator("main")).toContainText(ids.dead);
  await expect(page.locator("main")).toContainText(`downstream said: ${H.script}`);

  await page.goto("/events");
  await expectInert(page, dialogs, "events");
  await expect(page.locator(`tbody tr[data-event-id=${cssString(ids.stripeSub)}]`)).toHaveCount(1);

  // A search that matches: the hostile customer id finds the subscription event, shown as text.
  await page.goto(`/events?q=${encodeURIComponent(customer)}`);
  await expectInert(page, dialogs, "events?q=customer");
  await expect(page.getByRole("link", { name: ids.stripeSub })).toBeVisible();
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue(customer);

  // A type filter that matches the GitHub event's hostile type.
  await page.goto(`/events?type=${encodeURIComponent(githubType)}`);
  await expectInert(page, dialogs, "events?type=github");
  await expect(page.getByRole("link", { name: ids.github })).toBeVisible();
  await expect(page.locator("main")).toContainText(githubType);

  // Every key hostile: the input error echoes them as text; the inputs hold them as values.
  const hostileQuery = new URLSearchParams({
    q: H.script,
    type: H.img,
    source: H.svg,
    status: H.tpl,
    from: H.js,
    to: H.rtl,
    cursor: H.script,
    back: H.img,
    sort: H.svg,
  });
  await page.goto(`/events?${hostileQuery.toString()}`);
  await expectInert(page, dialogs, "events with hostile filters");
  await expect(page.locator("main").getByRole("alert")).toContainText(`"${H.svg}" is not a source slug`);
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue(H.script);
  await expect(page.getByLabel("Type")).toHaveValue(H.img);

  // The detector itself: markup really injected into a page is seen (and the CSP blocks its handler).
  // After hydration: a node injected before it is thrown away when React renders the root again.
  await page.waitForLoadState("networkidle");
  await page.evaluate((html) => document.querySelector("main")!.insertAdjacentHTML("beforeend", html), H.img.slice(2));
  await expect.poll(async () => (await inspect(page)).csp.length).toBeGreaterThan(0);
  const seen = await inspect(page);
  expect(seen.injected.length).toBeGreaterThan(0);
  expect(seen.handlers.length).toBeGreaterThan(0);
  expect(seen.xss).toBeUndefined();

  // Valid filters, hostile search: nothing matches, and nothing runs.
  for (const q of Object.values(H)) {
    await page.goto(`/events?${new URLSearchParams({ q, type: q, status: "settled" }).toString()}`);
    await expectInert(page, dialogs, `events?q=${q}`);
    await expect(page.getByLabel("Search", { exact: true })).toHaveValue(q.trim());
  }
});

test("[ui][xss] each hostile event's page, payload viewer, raw body and headers render as text", async ({ page }) => {
  const dialogs = await watch(page);
  await signInAt(page, eventPath("stripe", ids.stripeSub), E2E.admin.email, E2E.admin.password);
  const events: [string, string][] = [
    ["stripe", ids.stripeSub],
    ["stripe", ids.stripeOdd],
    ["stripe", ids.stripeInvoice],
    ["github", ids.github],
    // Shopify's ledger id is its event id scoped by topic (signShopify sends the webhook id as the event id).
    ["shopify", `${ids.shopify}:orders/updated`],
    ["paddle", ids.paddle],
    ["standard", ids.standard],
    ["slack", ids.slack],
    ["stripe", ids.dead],
    ["stripe", ids.requeued],
  ];
  for (const [source, id] of events) {
    await page.goto(eventPath(source, id));
    await expectInert(page, dialogs, `${source} ${id}`);
    await expect(page.getByRole("heading", { name: id, exact: true })).toBeVisible();
    await expect(page.locator("[data-raw-body]"), `${id} raw body`).toContainText(H.script);
  }
  // The subscription event in detail: the payload tree, keys included, the changes, the headers as received.
  await page.goto(eventPath("stripe", ids.stripeSub));
  const viewer = page.locator("[data-json-viewer]");
  await expect(viewer).toContainText(`"${ALL}"`);
  await page.locator('[data-json-viewer] details[data-path="data.object.metadata"] > summary').click();
  await expect(viewer.locator('[data-jv="key"]', { hasText: H.script })).toBeVisible();
  await expect(viewer.locator('[data-jv="key"]', { hasText: H.img })).toBeVisible();
  await page.getByRole("tab", { name: "Raw body" }).click();
  await expect(page.locator("[data-raw-body]")).toContainText(H.rtl);
  await page.getByRole("tab", { name: "Headers" }).click();
  const headers = page.locator("[data-headers]");
  await expect(headers.locator('[data-header="x-hostile-note"]')).toContainText(H.img);
  await expect(headers.locator('[data-header="x-hostile-link"]')).toContainText(H.js);
  await expect(headers.locator('[data-header="user-agent"]')).toContainText(H.script);
  await page.getByRole("tab", { name: /Changes/ }).click();
  await expect(page.locator("[data-changes]").first()).toContainText(H.svg);
  await expectInert(page, dialogs, "stripe subscription, metadata open");
  // The export is JSON, not HTML: nothing a browser would render.
  const res = await page.request.get(`${eventPath("stripe", ids.stripeSub)}/export`);
  expect(res.headers()["content-type"]).toMatch(/^application\/json/);
});

test("[ui][xss] entity timelines with hostile types, ids and state render as text", async ({ page }) => {
  const dialogs = await watch(page);
  await signInAt(page, entityPath("stripe", "subscription", subscriptionId), E2E.admin.email, E2E.admin.password);
  await expectInert(page, dialogs, "stripe subscription entity");
  await expect(page.getByRole("heading", { name: subscriptionId, exact: true })).toBeVisible();
  await expect(page.getByTestId("entity-state")).toContainText(H.svg); // the stored status
  await expect(page.getByTestId("entity-state")).toContainText(customer);
  await expect(page.locator(`li[data-event-id=${cssString(ids.stripeSub)}]`)).toContainText(
    `status: null → ${JSON.stringify(H.svg)}`,
  );

  const entities: [string, string, string][] = [
    ["stripe", oddEntity.type, oddEntity.id],
    ["paddle", "subscription", paddleSubscription],
    ["standard", H.script.split(".")[0]!, H.js],
    ["slack", "channel", slackChannel],
  ];
  for (const [source, type, id] of entities) {
    await page.goto(entityPath(source, type, id));
    await expectInert(page, dialogs, `${source} ${type} ${id}`);
    await expect(page.getByRole("heading", { name: id, exact: true })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Breadcrumb" })).toContainText(type);
  }
  // The "every event that mentions it" link keeps the hostile id in its query, not as a URL of its own.
  await page.goto(entityPath("stripe", oddEntity.type, oddEntity.id));
  await expect(page.getByRole("link", { name: "Every event that mentions it →" })).toHaveAttribute(
    "href",
    `/events?${new URLSearchParams({ q: oddEntity.id }).toString()}`,
  );
  // A hostile entity page that does not exist is a plain 404.
  const missing = await page.goto(entityPath("stripe", H.script, H.img));
  expect(missing?.status()).toBe(404);
  await expectInert(page, dialogs, "missing hostile entity");
});

test("[ui][xss] the audit log, the users list and the replays render hostile names and rows as text", async ({
  page,
}) => {
  const dialogs = await watch(page);
  await signInAt(page, "/audit", E2E.admin.email, E2E.admin.password);
  await expectInert(page, dialogs, "audit");
  const main = page.locator("main");
  await expect(main).toContainText(`${H.script}@audit`);
  await expect(main).toContainText(`event:stripe/${H.img}`);
  await expect(main).toContainText(`event:stripe/${ids.requeued}`); // the admin's requeue of the hostile event
  await expect(main).toContainText(`user:xss-${tag}@e2e.example`);

  await page.goto("/users");
  await expectInert(page, dialogs, "users");
  await expect(page.locator(`tr[data-user="xss-${tag}@e2e.example"]`)).toContainText(hostileName);

  await page.goto("/replays");
  await expectInert(page, dialogs, "replays");
  const run = page.locator("tr[data-run-id]", { hasText: replayActor });
  await expect(run).toContainText(`${H.img}, ${H.svg}, ${H.tpl}`);
  await expect(run).toContainText(`${H.script} ${H.img}`);
});

test("[ui][xss] sign-in with next=javascript: lands on the console, running nothing", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const dialogs = await watch(page);
  await page.goto(`/sign-in?next=${encodeURIComponent(H.js)}`);
  await page.getByLabel("Email").fill(E2E.admin.email);
  await page.getByLabel("Password").fill(E2E.admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${E2E.baseURL}/`);
  await expectInert(page, dialogs, "after sign-in with next=javascript:");
  await context.close();
});
