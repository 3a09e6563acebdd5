import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { stripeInvoicePaidEvent } from "../../test/fixtures/stripe";
import { e2eSql } from "../db";
import { E2E } from "../env";
import { addUser, signInAt } from "./helpers";
import { sql as dsql } from "drizzle-orm";
import { seedEventsAt } from "../../test/seed-events";

/**
 * Cross-site request forgery in a real browser. The attacker's page is served from another port of the
 * same host: cross-origin but same-site, so the console's SameSite=Lax session cookie does go along with
 * its POSTs, and only the app's own checks stand in the way: Next's Origin-vs-Host check on server
 * actions, better-auth's Origin check on the auth API. Each forgery is paired with the same request
 * made from the app's own origin, which does work, so a refusal is the check's and not a malformed request.
 */
const sql = e2eSql();
const tag = randomUUID().replaceAll("-", "").slice(0, 10);
const PW = "csrf password 1234";
const supportEmail = `csrf-support-${tag}@e2e.example`;

// The attacker's site: pages set per test, served as they are (no CSP: its inline script runs).
const pages = new Map<string, string>();
let attacker: Server;
let evil = "";

const esc = (v: string) => v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const formPage = (action: string, fields: [string, string][], enctype = "multipart/form-data") => {
  const inputs = fields.map(([n, v]) => `<input type="hidden" name="${esc(n)}" value="${esc(v)}">`).join("");
  return (
    `<!doctype html><form id="f" method="POST" enctype="${enctype}" action="${esc(action)}">` +
    `${inputs}<button>Claim your prize</button></form>`
  );
};
const scriptPage = (script: string) =>
  `<!doctype html><p>free prizes</p><script>window.__done = false; (async () => { ${script} })().finally(() => { window.__done = true; });</script>`;

test.beforeAll(async ({ browser }) => {
  attacker = createServer((req, res) => {
    const body = pages.get(req.url ?? "");
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(body ?? "not found");
  });
  attacker.listen(0, "127.0.0.1");
  await once(attacker, "listening");
  evil = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  expect(evil).not.toBe(E2E.baseURL);

  const admin = await browser.newPage();
  await signInAt(admin, "/users", E2E.admin.email, E2E.admin.password);
  await addUser(admin, supportEmail, "support", PW);
  await admin.close();
  for (const n of [1, 2, 3]) {
    const eventId = `evt_${tag}_csrf${n}`;
    const body = JSON.stringify(
      stripeInvoicePaidEvent({ eventId, customerId: `cus_Csrf${tag}`, invoiceId: `in_1Csrf${tag}${n}` }),
    );
    await seedEventsAt(
      E2E.databaseUrl,
      "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error",
      dsql`values ('stripe', ${eventId}, 'invoice.paid', ${body}::text::jsonb, ${body}, '{}'::jsonb, 'dead', 8, 'downstream timeout')`,
    );
  }
});

test.afterAll(async () => {
  attacker.close();
  await sql.end();
});

const usersNamed = async (email: string) =>
  (await sql`select email, role from auth_user where email = ${email}`).length;
const okAudit = async (target: string) =>
  (await sql`select 1 from audit_log where target = ${target} and result = 'ok'`).length;
const statusOf = async (eventId: string) =>
  (await sql`select status from webhook_event where event_id = ${eventId}`)[0]?.status as string | undefined;
const adminSessions = async () =>
  (
    await sql`select count(*)::int as n from auth_session s join auth_user u on u.id = s.user_id where u.email = ${E2E.admin.email}`
  )[0]?.n as number;

/** The hidden fields React renders into the Users page's "Add user" form: what makes a plain POST run createUserAction. */
async function addUserFormFields(page: Page): Promise<[string, string][]> {
  const html = await (await page.request.get("/users")).text();
  const fields = await page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, "text/html");
    const form = [...doc.querySelectorAll("form")].find((f) => f.textContent?.includes("Add user"));
    return form
      ? [...form.querySelectorAll<HTMLInputElement>('input[type="hidden"]')].map((i): [string, string] => [
          i.name,
          i.value,
        ])
      : [];
  }, html);
  expect(
    fields.some(([name]) => name.startsWith("$ACTION")),
    "the form carries its action reference",
  ).toBe(true);
  return fields;
}
const newUserFields = (email: string): [string, string][] => [
  ["email", email],
  ["name", "forged"],
  ["role", "admin"],
  ["password", "forged admin password"],
];

/** The next POST the page sends to the app's `path`, with the headers it really carried. */
const appPost = (page: Page, path: string) =>
  page.waitForRequest((r) => r.method() === "POST" && r.url() === `${E2E.baseURL}${path}`);

/**
 * Opens an attacker page with a form and submits it, as a person clicking on it would: the browser's own
 * cross-origin POST to the app's `target`. Returns that request once the browser shows its answer.
 */
async function submitForm(page: Page, path: string, target: string) {
  await page.goto(`${evil}${path}`);
  const sent = appPost(page, target);
  await page.getByRole("button", { name: "Claim your prize" }).click();
  const req = await sent;
  await page.waitForURL(`${E2E.baseURL}${target}`);
  return req;
}

test("[ui][csrf] a cross-origin form post to a server action (Add user) is refused although the session cookie goes along", async ({
  page,
}) => {
  await signInAt(page, "/users", E2E.admin.email, E2E.admin.password);
  const fields = await addUserFormFields(page);

  // Control: the same fields, posted as a plain form from the app's own origin, do add the user.
  const control = `csrf-control-${tag}@e2e.example`;
  const sent = appPost(page, "/users");
  const loaded = page.waitForEvent("load");
  await page.evaluate(
    (all) => {
      const f = document.createElement("form");
      Object.assign(f, { method: "POST", enctype: "multipart/form-data", action: "/users" });
      for (const [name, value] of all)
        f.append(Object.assign(document.createElement("input"), { type: "hidden", name, value }));
      document.body.append(f);
      f.submit();
    },
    [...fields, ...newUserFields(control)],
  );
  expect((await (await sent).response())?.status()).toBe(200);
  await loaded;
  await expect.poll(() => usersNamed(control)).toBe(1);
  expect(await okAudit(`user:${control}`)).toBe(1);

  // The forgery: the attacker's page auto-submits the same form to the app.
  const forged = `csrf-forged-${tag}@e2e.example`;
  pages.set("/add-user", formPage(`${E2E.baseURL}/users`, [...fields, ...newUserFields(forged)]));
  const req = await submitForm(page, "/add-user", "/users");
  const headers = await req.allHeaders();
  expect(headers.origin).toBe(evil);
  expect(headers.cookie ?? "").toContain("ledger.session_token=");
  const status = (await req.response())?.status() ?? 0;
  expect(status).toBeGreaterThanOrEqual(400);

  // And as a no-cors fetch with the same multipart body (what a script on the attacker's page can send).
  pages.set(
    "/add-user-fetch",
    scriptPage(`
    const fd = new FormData();
    for (const [n, v] of ${JSON.stringify([...fields, ...newUserFields(forged)])}) fd.append(n, v);
    await fetch(${JSON.stringify(`${E2E.baseURL}/users`)}, { method: "POST", mode: "no-cors", credentials: "include", body: fd }).catch(() => {});
  `),
  );
  await page.goto(`${evil}/add-user-fetch`);
  await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);

  expect(await usersNamed(forged)).toBe(0);
  expect(await okAudit(`user:${forged}`)).toBe(0);
});

test("[ui][csrf] a server-action call replayed with a foreign Origin and the victim's cookie is refused; from the app's origin it works", async ({
  page,
}) => {
  const [first, second, third] = [1, 2, 3].map((n) => `evt_${tag}_csrf${n}`) as [string, string, string];
  await signInAt(page, `/events/stripe/${first}`, E2E.admin.email, E2E.admin.password);
  // Capture the real call the Requeue button makes (a fetch action: the Next-Action header, the encoded arguments).
  const sent = appPost(page, `/events/stripe/${first}`);
  await page.getByRole("button", { name: "Requeue" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Requeue event" }).click();
  const real = await sent;
  await expect(page.getByRole("status")).toContainText("Requeued");
  const captured = await real.allHeaders();
  expect(captured["next-action"]).toBeTruthy();
  const replayHeaders = Object.fromEntries(
    Object.entries(captured).filter(
      ([k]) =>
        !["origin", "referer", "cookie", "host", "content-length", "connection"].includes(k) && !k.startsWith("sec-"),
    ),
  );
  const bodyFor = (eventId: string) => (real.postData() ?? "").replaceAll(first, eventId);
  expect(bodyFor(second)).toContain(second);

  // The same call for another dead event, from the attacker's origin, with the admin's cookie (page.request shares it).
  for (const origin of [evil, "http://evil.example", "null"]) {
    const res = await page.request.post(`/events/stripe/${second}`, {
      headers: { ...replayHeaders, origin },
      data: bodyFor(second),
    });
    expect(res.status(), `origin ${origin}`).toBeGreaterThanOrEqual(400);
  }
  expect(await statusOf(second)).toBe("dead");
  expect(await okAudit(`event:stripe/${second}`)).toBe(0);

  // The browser itself will not send it cross-origin: a custom Next-Action header needs a CORS preflight the app never grants.
  pages.set(
    "/requeue-fetch",
    scriptPage(`
    await fetch(${JSON.stringify(`${E2E.baseURL}/events/stripe/${second}`)}, { method: "POST", mode: "cors", credentials: "include",
      headers: ${JSON.stringify({ "next-action": captured["next-action"], "content-type": captured["content-type"] ?? "text/plain;charset=UTF-8" })},
      body: ${JSON.stringify(bodyFor(second))} }).catch(() => {});
  `),
  );
  await page.goto(`${evil}/requeue-fetch`);
  await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);
  expect(await statusOf(second)).toBe("dead");

  // Control: replayed from the app's own origin, the same request does requeue.
  const ok = await page.request.post(`/events/stripe/${third}`, {
    headers: { ...replayHeaders, origin: E2E.baseURL },
    data: bodyFor(third),
  });
  expect(ok.status()).toBe(200);
  await expect.poll(() => okAudit(`event:stripe/${third}`)).toBe(1);
  expect(await statusOf(second)).toBe("dead");
});

test("[ui][csrf] cross-origin posts to sign-out and to better-auth's admin endpoints change nothing", async ({
  page,
}) => {
  await signInAt(page, "/", E2E.admin.email, E2E.admin.password);
  const sessionsBefore = await adminSessions();
  const [victim] = await sql`select id, role from auth_user where email = ${supportEmail}`;
  expect(victim?.role).toBe("support");

  // A form post to sign-out (navigation, urlencoded) and no-cors fetches of each kind a page can send.
  pages.set(
    "/sign-out-form",
    formPage(`${E2E.baseURL}/api/auth/sign-out`, [["x", "1"]], "application/x-www-form-urlencoded"),
  );
  const signOutReq = await submitForm(page, "/sign-out-form", "/api/auth/sign-out");
  expect((await signOutReq.allHeaders()).cookie ?? "").toContain("ledger.session_token=");
  expect((await signOutReq.response())?.status()).toBeGreaterThanOrEqual(400);

  const adminPaths = [
    "/api/auth/admin/set-role",
    "/api/auth/admin/ban-user",
    "/api/auth/admin/create-user",
    "/api/auth/admin/impersonate-user",
  ];
  const made = {
    userId: victim?.id,
    role: "admin",
    email: `csrf-made-${tag}@e2e.example`,
    password: "made by csrf 1234",
    name: "x",
  };
  pages.set(
    "/auth-fetch",
    scriptPage(`
    const post = (path, body, type) =>
      fetch(${JSON.stringify(E2E.baseURL)} + path, {
        method: "POST",
        mode: "no-cors",
        credentials: "include",
        headers: type ? { "content-type": type } : {},
        body,
      }).catch(() => {});
    const json = ${JSON.stringify(JSON.stringify(made))};
    await post("/api/auth/sign-out", "{}", "text/plain");
    await post("/api/auth/sign-out", new URLSearchParams({ x: "1" }));
    await post("/api/auth/sign-out", new FormData());
    for (const path of ${JSON.stringify(adminPaths)}) {
      await post(path, json, "text/plain");
      await post(path, new URLSearchParams(JSON.parse(json)));
    }
    // A CORS fetch with JSON needs a preflight, which fails: it is never sent.
    await fetch(${JSON.stringify(`${E2E.baseURL}/api/auth/sign-out`)}, {
      method: "POST",
      mode: "cors",
      credentials: "include",
      headers: { "content-type": "application/json" },
      body: "{}",
    }).catch(() => {});
  `),
  );
  await page.goto(`${evil}/auth-fetch`);
  await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);

  // Still signed in, still admin; the support user is still support, not banned; nobody was created or impersonated.
  expect(await adminSessions()).toBe(sessionsBefore);
  await page.goto("/users");
  await expect(page).toHaveURL(`${E2E.baseURL}/users`);
  await expect(page.getByRole("heading", { name: "Users", exact: true })).toBeVisible();
  expect(await sql`select role, banned from auth_user where email = ${supportEmail}`).toEqual([
    { role: "support", banned: false },
  ]);
  expect(await usersNamed(`csrf-made-${tag}@e2e.example`)).toBe(0);
  expect(await sql`select 1 from auth_session where impersonated_by is not null`).toEqual([]);
});

test("[ui][csrf] a cross-origin sign-in form (login CSRF into the attacker's account) opens no session", async ({
  browser,
}) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const before = (
    await sql`select count(*)::int as n from auth_session s join auth_user u on u.id = s.user_id where u.email = ${supportEmail}`
  )[0]?.n as number;
  for (const [path, enctype] of [
    ["/sign-in-form", "application/x-www-form-urlencoded"],
    ["/sign-in-form-text", "text/plain"],
  ] as const) {
    pages.set(
      path,
      formPage(
        `${E2E.baseURL}/api/auth/sign-in/email`,
        [
          ["email", supportEmail],
          ["password", PW],
        ],
        enctype,
      ),
    );
    const req = await submitForm(page, path, "/api/auth/sign-in/email");
    expect((await req.response())?.status(), enctype).toBeGreaterThanOrEqual(400);
  }
  pages.set(
    "/sign-in-fetch",
    scriptPage(`
    await fetch(${JSON.stringify(`${E2E.baseURL}/api/auth/sign-in/email`)}, { method: "POST", mode: "no-cors", credentials: "include",
      headers: { "content-type": "text/plain" }, body: ${JSON.stringify(JSON.stringify({ email: supportEmail, password: PW }))} }).catch(() => {});
  `),
  );
  await page.goto(`${evil}/sign-in-fetch`);
  await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);

  expect((await context.cookies(E2E.baseURL)).filter((c) => c.name.includes("session_token"))).toEqual([]);
  expect(
    (
      await sql`select count(*)::int as n from auth_session s join auth_user u on u.id = s.user_id where u.email = ${supportEmail}`
    )[0]?.n,
  ).toBe(before);
  await context.close();
});
