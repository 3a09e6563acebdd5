import { sql } from "drizzle-orm";
import { isCsrfOriginAllowed } from "next/dist/server/app-render/csrf-protection";
import { afterAll, describe, expect, it, vi } from "vitest";
import { rowsOf } from "@/db/client";
import type { Auth } from "@/lib/auth/server";
import { createAuth, getActor } from "@/lib/auth/server";
import { contentSecurityPolicy } from "@/lib/server/security-headers";
import nextConfig from "@/next.config";
import { BASE_URL, makeUser, signIn, testAuth } from "../auth/helpers";
import { setupTestDb } from "../db";

/**
 * Cross-site request forgery against the auth API, at the level the app runs it: better-auth's own
 * handler (the route in app/api/auth/[...all] hands every request to it). A browser always sends
 * Origin on a cross-origin POST (and Sec-Fetch-* on a modern one); better-auth refuses any origin but
 * the app's own (trustedOrigins: [APP_URL]) once a cookie is present, and on sign-in even without one.
 * Server actions are Next's: its Origin-vs-Host check is exercised over HTTP by e2e/ui/csrf.spec.ts;
 * here only the configuration it reads (no extra allowedOrigins).
 */
// better-auth turns its origin check off under test (NODE_ENV=test, read once when it loads, or a truthy
// TEST, read when an auth instance is made; vitest sets both). The app runs it with NODE_ENV=production,
// so that is how this file loads it; the last test here shows what a truthy TEST does to the app's config.
const saved = vi.hoisted(() => {
  const env = { NODE_ENV: process.env.NODE_ENV, TEST: process.env.TEST };
  (process.env as Record<string, string | undefined>).NODE_ENV = "production";
  delete process.env.TEST;
  return env;
});
afterAll(() => {
  (process.env as Record<string, string | undefined>).NODE_ENV = saved.NODE_ENV;
  if (saved.TEST === undefined) delete process.env.TEST;
  else process.env.TEST = saved.TEST;
});

const { db } = setupTestDb();

const EVIL = "http://evil.example";
const PASSWORD = "correct horse battery";
let calls = 0;

interface Sent {
  origin?: string;
  referer?: string;
  cookie?: string;
  fetchSite?: "same-origin" | "same-site" | "cross-site" | "none";
  fetchMode?: "cors" | "no-cors" | "navigate" | "same-origin";
  contentType?: string;
  body?: string;
}

/** One POST to the auth handler, each from its own client address (the per-IP limit stays out of the way). */
async function post(auth: Auth, path: string, s: Sent) {
  const headers: Record<string, string> = {
    "content-type": s.contentType ?? "application/json",
    "x-forwarded-for": `198.19.${(++calls >> 8) & 255}.${calls & 255}`,
  };
  if (s.origin !== undefined) headers.origin = s.origin;
  if (s.referer !== undefined) headers.referer = s.referer;
  if (s.cookie !== undefined) headers.cookie = s.cookie;
  if (s.fetchSite) headers["sec-fetch-site"] = s.fetchSite;
  if (s.fetchMode) {
    headers["sec-fetch-mode"] = s.fetchMode;
    headers["sec-fetch-dest"] = s.fetchMode === "navigate" ? "document" : "empty";
  }
  const res = await auth.handler(
    new Request(`${BASE_URL}/api/auth${path}`, { method: "POST", headers, body: s.body ?? "{}" }),
  );
  const setCookie = res.headers.getSetCookie();
  return {
    status: res.status,
    setCookie,
    session: setCookie.find((c) => c.startsWith("ledger.session_token=") && !/max-age=0/i.test(c))?.split(";")[0],
    text: await res.text(),
  };
}

const credentials = (email: string) => JSON.stringify({ email, password: PASSWORD });
const sessions = async () =>
  rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from auth_session`))[0]!.n;

async function signedIn() {
  const auth = testAuth(db);
  const user = await makeUser(db, "admin");
  const { cookie } = await signIn(auth, user.email, PASSWORD);
  expect(cookie).toBeDefined();
  return { auth, user, cookie: cookie! };
}

describe("CSRF on the auth API", () => {
  it("[csrf] control: a same-origin sign-in and sign-out work", async () => {
    const auth = testAuth(db);
    const user = await makeUser(db, "ops");
    const res = await post(auth, "/sign-in/email", {
      origin: BASE_URL,
      fetchSite: "same-origin",
      fetchMode: "cors",
      body: credentials(user.email),
    });
    expect(res.status).toBe(200);
    expect(res.session).toBeDefined();
    const out = await post(auth, "/sign-out", {
      origin: BASE_URL,
      fetchSite: "same-origin",
      fetchMode: "cors",
      cookie: res.session,
    });
    expect(out.status).toBe(200);
    expect(await getActor(auth, new Headers({ cookie: res.session! }))).toBeUndefined();
  });

  const FOREIGN: [string, Sent][] = [
    ["a foreign Origin", { origin: EVIL }],
    ["a foreign Origin, as a cross-site fetch", { origin: EVIL, fetchSite: "cross-site", fetchMode: "cors" }],
    [
      "a foreign Origin, as a cross-site form post",
      {
        origin: EVIL,
        fetchSite: "cross-site",
        fetchMode: "navigate",
        contentType: "application/x-www-form-urlencoded",
      },
    ],
    [
      "another port of the same host (same-site, cross-origin)",
      { origin: "http://127.0.0.1:4000", fetchSite: "same-site", fetchMode: "navigate" },
    ],
    ["a look-alike origin (the app's host as a subdomain)", { origin: `${BASE_URL}.evil.example` }],
    ["the app's origin over another scheme", { origin: BASE_URL.replace("http:", "https:") }],
    ["Origin: null from a sandboxed cross-site frame", { origin: "null", fetchSite: "cross-site", fetchMode: "cors" }],
    ["no Origin but a foreign Referer", { referer: `${EVIL}/attack.html` }],
  ];

  for (const [how, sent] of FOREIGN)
    it(`[csrf] sign-in with ${how} is refused (403): no session is opened`, async () => {
      const auth = testAuth(db);
      const user = await makeUser(db, "ops");
      const res = await post(auth, "/sign-in/email", {
        ...sent,
        body: sent.contentType?.includes("urlencoded")
          ? `email=${encodeURIComponent(user.email)}&password=${encodeURIComponent(PASSWORD)}`
          : credentials(user.email),
      });
      expect(res.status).toBe(403);
      expect(res.session).toBeUndefined();
      expect(await sessions()).toBe(0);
    });

  it("[csrf] sign-in with no Origin but a cookie (a browser session already open) is refused (403)", async () => {
    const { auth, cookie } = await signedIn();
    const other = await makeUser(db, "support");
    const before = await sessions();
    const res = await post(auth, "/sign-in/email", { cookie, body: credentials(other.email) });
    expect(res.status).toBe(403);
    expect(res.session).toBeUndefined();
    expect(await sessions()).toBe(before);
    // The session that was open is still the admin's: no login-CSRF swap to another account.
    expect((await getActor(auth, new Headers({ cookie })))?.role).toBe("admin");
  });

  it("[csrf] sign-in with a foreign Origin and a cookie is refused (403)", async () => {
    const { auth, cookie } = await signedIn();
    const other = await makeUser(db, "support");
    const res = await post(auth, "/sign-in/email", { origin: EVIL, cookie, body: credentials(other.email) });
    expect(res.status).toBe(403);
    expect(res.session).toBeUndefined();
  });

  const SIGN_OUT: [string, Sent, number][] = [
    ["a foreign Origin", { origin: EVIL }, 403],
    // What a plain HTML form can send (urlencoded, text/plain) is refused before the origin is even read.
    [
      "a foreign Origin, as a cross-site form post",
      {
        origin: EVIL,
        fetchSite: "cross-site",
        fetchMode: "navigate",
        contentType: "application/x-www-form-urlencoded",
        body: "",
      },
      415,
    ],
    [
      "another port of the same host",
      { origin: "http://127.0.0.1:4000", fetchSite: "same-site", fetchMode: "cors" },
      403,
    ],
    [
      "another port of the same host, as a no-cors text/plain fetch",
      { origin: "http://127.0.0.1:4000", fetchSite: "same-site", fetchMode: "no-cors", contentType: "text/plain" },
      415,
    ],
    ["no Origin at all", {}, 403],
    ["Origin: null", { origin: "null", fetchSite: "cross-site", fetchMode: "cors" }, 403],
    ["no Origin but a foreign Referer", { referer: `${EVIL}/attack.html` }, 403],
  ];

  for (const [how, sent, status] of SIGN_OUT)
    it(`[csrf] sign-out with the session cookie and ${how} is refused (${status}): the session survives`, async () => {
      const { auth, user, cookie } = await signedIn();
      const res = await post(auth, "/sign-out", { ...sent, cookie });
      expect(res.status).toBe(status);
      expect(res.setCookie.filter((c) => c.startsWith("ledger.session_token="))).toEqual([]);
      expect((await getActor(auth, new Headers({ cookie })))?.id).toBe(user.id);
      expect(await sessions()).toBe(1);
    });

  it("[csrf] the closed admin endpoints stay closed to a cross-origin post as well (404, nothing changes)", async () => {
    const { auth, user, cookie } = await signedIn();
    const victim = await makeUser(db, "support");
    for (const path of ["/admin/set-role", "/admin/create-user", "/admin/impersonate-user", "/admin/ban-user"]) {
      const res = await post(auth, path, {
        origin: EVIL,
        cookie,
        body: JSON.stringify({
          userId: victim.id,
          role: "admin",
          email: "x@evil.example",
          password: "evil evil evil evil",
          name: "x",
        }),
      });
      expect(res.status, path).toBe(404);
    }
    expect(rowsOf(await db.execute(sql`select email, role, banned from auth_user order by email`))).toEqual([
      { email: user.email, role: "admin", banned: false },
      { email: victim.email, role: "support", banned: false },
    ]);
    expect(await sessions()).toBe(1);
  });
});

describe("session fixation", () => {
  it("[session] a session cookie set before sign-in (planted, made up) is not the one after sign-in, and identifies nobody", async () => {
    const auth = testAuth(db);
    const user = await makeUser(db, "ops");
    const planted = "ledger.session_token=attacker-chosen-token.attacker-chosen-signature";
    const res = await post(auth, "/sign-in/email", {
      origin: BASE_URL,
      cookie: planted,
      body: credentials(user.email),
    });
    expect(res.status).toBe(200);
    expect(res.session).toBeDefined();
    expect(res.session).not.toBe(planted);
    expect(await getActor(auth, new Headers({ cookie: planted }))).toBeUndefined();
    expect((await getActor(auth, new Headers({ cookie: res.session! })))?.id).toBe(user.id);
  });

  it("[session] signing in over an attacker's planted session: new token; the planted one stays theirs", async () => {
    const auth = testAuth(db);
    const attacker = await makeUser(db, "support", "attacker@example.com");
    const victim = await makeUser(db, "admin", "victim@example.com");
    const { cookie: planted } = await signIn(auth, attacker.email, PASSWORD);
    const res = await post(auth, "/sign-in/email", {
      origin: BASE_URL,
      cookie: planted,
      body: credentials(victim.email),
    });
    expect(res.status).toBe(200);
    expect(res.session).not.toBe(planted);
    expect(res.session!.split("=")[1]!.split(".")[0]).not.toBe(planted!.split("=")[1]!.split(".")[0]);
    // Whoever holds the planted cookie is still only the attacker, never the victim who signed in after.
    expect((await getActor(auth, new Headers({ cookie: planted! })))?.id).toBe(attacker.id);
    expect((await getActor(auth, new Headers({ cookie: res.session! })))?.id).toBe(victim.id);
  });

  it("[session] every sign-in gets a fresh random token; the cookie is signed, HttpOnly and SameSite=Lax", async () => {
    const auth = testAuth(db);
    const user = await makeUser(db, "ops");
    const a = await post(auth, "/sign-in/email", { origin: BASE_URL, body: credentials(user.email) });
    const b = await post(auth, "/sign-in/email", { origin: BASE_URL, body: credentials(user.email) });
    expect(a.session).not.toBe(b.session);
    const tokens = rowsOf<{ token: string }>(await db.execute(sql`select token from auth_session`)).map((r) => r.token);
    expect(new Set(tokens).size).toBe(2);
    for (const t of tokens) expect(t.length).toBeGreaterThanOrEqual(32);
    const header = a.setCookie.find((c) => c.startsWith("ledger.session_token="))!;
    expect(header).toMatch(/;\s*HttpOnly/i);
    expect(header).toMatch(/;\s*SameSite=Lax/i);
    expect(header).toMatch(/;\s*Path=\//i);
    // The bare token, or the token with another signature, identifies nobody.
    const [token] = a.session!.split("=")[1]!.split(".");
    expect(await getActor(auth, new Headers({ cookie: `ledger.session_token=${token}` }))).toBeUndefined();
    expect(
      await getActor(auth, new Headers({ cookie: `ledger.session_token=${token}.${"A".repeat(43)}` })),
    ).toBeUndefined();
  });

  it("[session] over https the session cookie is __Secure- and Secure", async () => {
    const auth = createAuth(db, {
      baseURL: "https://ledger.example",
      secret: "test-secret-test-secret-test-secret-0123",
      signInPerMinute: 100,
      sessionHours: 12,
    });
    const user = await makeUser(db, "ops");
    const res = await auth.handler(
      new Request("https://ledger.example/api/auth/sign-in/email", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "https://ledger.example",
          "x-forwarded-for": "198.19.250.1",
        },
        body: credentials(user.email),
      }),
    );
    expect(res.status).toBe(200);
    const header = res.headers.getSetCookie().find((c) => c.startsWith("__Secure-ledger.session_token="));
    expect(header).toBeDefined();
    expect(header).toMatch(/;\s*Secure/i);
  });

  it("[session] after sign-out a copied session cookie no longer works (revoked on the server, not only cleared)", async () => {
    const { auth, cookie } = await signedIn();
    const out = await post(auth, "/sign-out", { origin: BASE_URL, cookie });
    expect(out.status).toBe(200);
    expect(await getActor(auth, new Headers({ cookie }))).toBeUndefined();
    expect(await sessions()).toBe(0);
  });
});

describe("what Next's server-action CSRF check and the browser read from the app", () => {
  it("[csrf] next.config.ts lets no other origin call server actions (no serverActions.allowedOrigins)", () => {
    const allowed =
      (nextConfig.experimental as { serverActions?: { allowedOrigins?: string[] } } | undefined)?.serverActions
        ?.allowedOrigins ?? [];
    expect(allowed).toEqual([]);
    for (const host of ["evil.example", "127.0.0.1:4000", "127.0.0.1:3999.evil.example", "localhost"])
      expect(isCsrfOriginAllowed(host, allowed), host).toBe(false);
  });

  it("[csrf] the pages' CSP lets forms post only to the app and no site frame it", () => {
    const csp = contentSecurityPolicy({ nonce: "bm9uY2U=" });
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });
});

describe("the origin check does not depend on the environment", () => {
  // better-auth's default is "off under test": createAuth leaves advanced.disableOriginCheck unset, so a
  // deployment whose environment has TEST=1 (or NODE_ENV=test) runs with no CSRF check on the auth API.
  it("[csrf] with TEST=true in the environment, a cross-origin sign-out with the session cookie is still refused", async () => {
    const { user, cookie } = await signedIn();
    process.env.TEST = "true";
    try {
      const auth = testAuth(db);
      const res = await post(auth, "/sign-out", { origin: EVIL, cookie });
      expect(res.status).toBe(403);
      expect((await getActor(auth, new Headers({ cookie })))?.id).toBe(user.id);
    } finally {
      delete process.env.TEST;
    }
  });
});
