import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { isExposedAuthPath } from "@/lib/auth/exposed";
import type { Auth } from "@/lib/auth/server";
import { setupTestDb } from "../db";
import { BASE_URL, makeUser, signIn, testAuth } from "./helpers";

const { db } = setupTestDb();

let calls = 0;

/**
 * A request to better-auth's HTTP handler as a browser on the app would send it (same origin, JSON); each from its
 * own address, so the per-IP limit stays out of the way.
 */
async function call(auth: Auth, path: string, opts: { method?: string; cookie?: string; body?: unknown } = {}) {
  const method = opts.method ?? "POST";
  const headers: Record<string, string> = {
    origin: BASE_URL,
    "x-forwarded-for": `198.18.${(++calls >> 8) & 255}.${calls & 255}`,
  };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (method !== "GET") headers["content-type"] = "application/json";
  const res = await auth.handler(
    new Request(`${BASE_URL}/api/auth${path}`, {
      method,
      headers,
      body: method === "GET" ? undefined : JSON.stringify(opts.body ?? {}),
    }),
  );
  return { status: res.status, text: await res.text() };
}

async function soleAdmin() {
  const auth = testAuth(db);
  const admin = await makeUser(db, "admin");
  const { cookie } = await signIn(auth, admin.email, "correct horse battery");
  return { auth, admin, cookie: cookie! };
}

const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await db.execute(query));

describe("better-auth endpoints the console does not use", () => {
  it("[auth] as the only admin, POST admin/set-role on yourself answers 404 and you stay admin", async () => {
    const { auth, admin, cookie } = await soleAdmin();
    const res = await call(auth, "/admin/set-role", { cookie, body: { userId: admin.id, role: "ops" } });
    expect(res.status).toBe(404);
    expect(await q(sql`select role from auth_user`)).toEqual([{ role: "admin" }]);
  });

  it("[auth] admin/create-user and admin/impersonate-user answer 404: no user, no session, nothing unaudited", async () => {
    const { auth, cookie } = await soleAdmin();
    const victim = await makeUser(db, "ops");
    const created = await call(auth, "/admin/create-user", {
      cookie,
      body: { email: "sneaky@example.com", password: "a long enough password", name: "x", role: "admin" },
    });
    const impersonated = await call(auth, "/admin/impersonate-user", { cookie, body: { userId: victim.id } });
    expect([created.status, impersonated.status]).toEqual([404, 404]);
    expect(await q(sql`select email from auth_user order by email`)).toEqual([
      { email: "admin@example.com" },
      { email: "ops@example.com" },
    ]);
    expect(
      await q(
        sql`select user_id, impersonated_by from auth_session where user_id = ${victim.id} or impersonated_by is not null`,
      ),
    ).toEqual([]);
    // The admin's own sign-in is the only row: the refused endpoints recorded nothing as done.
    expect(await q(sql`select action, actor_email from audit_log`)).toEqual([
      { action: "auth.sign-in", actor_email: "admin@example.com" },
    ]);
  });

  it("[auth] update-user is not exposed: a 500 KB display name is refused and changes nothing", async () => {
    const { auth, admin, cookie } = await soleAdmin();
    const res = await call(auth, "/update-user", { cookie, body: { name: "x".repeat(500_000) } });
    expect(res.status).toBe(404);
    expect(await q(sql`select name, length(name) as n from auth_user where id = ${admin.id}`)).toEqual([
      { name: "admin", n: 5 },
    ]);
  });

  it("[auth] the app's name limit (100) also holds for better-auth's own server-side update", async () => {
    const { auth, admin, cookie } = await soleAdmin();
    await expect(
      auth.api.updateUser({ headers: new Headers({ cookie }), body: { name: "x".repeat(101) } }),
    ).rejects.toMatchObject({ statusCode: 400 });
    await auth.api.updateUser({ headers: new Headers({ cookie }), body: { name: "x".repeat(100) } });
    expect(await q(sql`select length(name) as n from auth_user where id = ${admin.id}`)).toEqual([{ n: 100 }]);
  });

  const CLOSED: [string, string][] = [
    ...[
      "set-role",
      "create-user",
      "update-user",
      "remove-user",
      "ban-user",
      "unban-user",
      "set-user-password",
      "impersonate-user",
      "stop-impersonating",
      "revoke-user-session",
      "revoke-user-sessions",
      "has-permission",
    ].map((p): [string, string] => ["POST", `/admin/${p}`]),
    ["GET", "/admin/list-users"],
    ["GET", "/admin/get-user"],
    ["GET", "/admin/list-user-sessions"],
    ...[
      "update-user",
      "change-password",
      "change-email",
      "delete-user",
      "revoke-session",
      "revoke-sessions",
      "revoke-other-sessions",
      "request-password-reset",
      "reset-password",
      "sign-up/email",
      "sign-in/social",
      "send-verification-email",
      "link-social",
      "unlink-account",
      "refresh-token",
      "get-access-token",
      "update-session",
    ].map((p): [string, string] => ["POST", `/${p}`]),
    ["GET", "/list-sessions"],
    ["GET", "/list-accounts"],
    ["GET", "/account-info"],
    ["GET", "/verify-email?token=x"],
    ["GET", "/ok"],
    // Variants of allowed or closed paths must not slip past the allowlist.
    ["POST", "/admin/set-role/"],
    ["POST", "//admin/set-role"],
    ["POST", "/Admin/Set-Role"],
    ["POST", "/%61dmin/set-role"],
    ["POST", "/sign-in/email/../../admin/set-role"],
  ];

  it("[auth] every other library endpoint answers 404, signed in as admin or not", async () => {
    const { auth, admin, cookie } = await soleAdmin();
    for (const [method, path] of CLOSED)
      for (const who of [cookie, undefined]) {
        const res = await call(auth, path, {
          method,
          cookie: who,
          body: {
            userId: admin.id,
            role: "ops",
            name: "x",
            email: "e@example.com",
            password: "a long enough password",
            newPassword: "another long password",
            currentPassword: "correct horse battery",
          },
        });
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      }
    expect(await q(sql`select email, role, name, banned from auth_user`)).toEqual([
      { email: "admin@example.com", role: "admin", name: "admin", banned: false },
    ]);
    expect((await signIn(auth, admin.email, "correct horse battery")).status).toBe(200);
  });

  it("[auth] what the console uses still works: sign-in, get-session, sign-out", async () => {
    const { auth, admin, cookie } = await soleAdmin();
    const session = await call(auth, "/get-session", { method: "GET", cookie });
    expect(session.status).toBe(200);
    expect(JSON.parse(session.text)).toMatchObject({ user: { id: admin.id } });
    expect((await call(auth, "/sign-out", { cookie })).status).toBe(200);
    expect(await q(sql`select 1 from auth_session`)).toEqual([]);
  });

  it("[auth] the route's own guard lets through exactly the exposed paths", () => {
    expect(isExposedAuthPath(`${BASE_URL}/api/auth/sign-in/email`)).toBe(true);
    expect(isExposedAuthPath(`${BASE_URL}/api/auth/get-session?disableCookieCache=true`)).toBe(true);
    for (const path of [
      "/api/auth/admin/set-role",
      "/api/auth/sign-in/email/",
      "/api/auth//sign-out",
      "/api/auth",
      "/api/authsign-out",
      "/sign-out",
      "/api/auth/update-user",
    ])
      expect(isExposedAuthPath(`${BASE_URL}${path}`)).toBe(false);
  });
});
