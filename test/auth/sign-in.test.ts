import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { getActor } from "@/lib/auth/server";
import { changePassword, insertUser, setUserDisabled } from "@/lib/auth/users";
import { setupTestDb } from "../db";
import { makeUser, signIn, testAuth } from "./helpers";

const { db } = setupTestDb();

describe("passwords and sessions", () => {
  it("[auth] passwords are stored as a slow salted hash, never as text", async () => {
    // Through insertUser's own hashing (makeUser reuses one hash per password to spare the suite's CPU).
    await insertUser(db, { email: "s@example.com", role: "support", password: "correct horse battery", name: "s" });
    await insertUser(db, { email: "o@example.com", role: "ops", password: "correct horse battery", name: "o" });
    const rows = rowsOf<{ password: string }>(await db.execute(sql`select password from auth_account`));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.password).not.toContain("correct horse battery");
      expect(row.password).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/); // scrypt: salt:key
    }
    // Salted: the same password gives two different salts and two different keys.
    const [a, b] = rows.map((r) => r.password.split(":"));
    expect(a![0]).not.toBe(b![0]);
    expect(a![1]).not.toBe(b![1]);
  });

  it("[auth] the right password signs in and the session cookie identifies the user and role", async () => {
    const auth = testAuth(db);
    const user = await makeUser(db, "ops");
    const res = await signIn(auth, "ops@example.com", "correct horse battery");
    expect(res.status).toBe(200);
    expect(res.cookie).toBeDefined();
    expect(await getActor(auth, new Headers({ cookie: res.cookie! }))).toEqual(user);
  });

  it("[auth] a wrong password and an unknown email are refused with the same message", async () => {
    const auth = testAuth(db);
    await makeUser(db, "ops");
    const wrongPassword = await signIn(auth, "ops@example.com", "not the password");
    const unknownEmail = await signIn(auth, "nobody@example.com", "correct horse battery");
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual(unknownEmail.body);
    expect(wrongPassword.cookie).toBeUndefined();
  });

  it("[auth] repeated sign-in attempts from one client are refused with 429 past the limit", async () => {
    const auth = testAuth(db, { signInPerMinute: 3 });
    await makeUser(db, "ops");
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await signIn(auth, "ops@example.com", "wrong password!", "198.51.100.1")).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Even the right password waits out the window; another client is unaffected.
    expect((await signIn(auth, "ops@example.com", "correct horse battery", "198.51.100.1")).status).toBe(429);
    expect((await signIn(auth, "ops@example.com", "correct horse battery", "198.51.100.2")).status).toBe(200);
  });

  it("[auth] an expired session no longer identifies anyone", async () => {
    const auth = testAuth(db);
    await makeUser(db, "support");
    const { cookie } = await signIn(auth, "support@example.com", "correct horse battery");
    await db.execute(sql`update auth_session set expires_at = now() - interval '1 second'`);
    expect(await getActor(auth, new Headers({ cookie: cookie! }))).toBeUndefined();
  });

  it("[auth] disabling a user ends their sessions at once and refuses their next sign-in", async () => {
    const auth = testAuth(db);
    const admin = await makeUser(db, "admin");
    const victim = await makeUser(db, "support");
    const { cookie } = await signIn(auth, victim.email, "correct horse battery");
    expect(await getActor(auth, new Headers({ cookie: cookie! }))).toBeDefined();
    await setUserDisabled({ db, actor: admin, input: { userId: victim.id, disabled: true } });
    expect(await getActor(auth, new Headers({ cookie: cookie! }))).toBeUndefined();
    const again = await signIn(auth, victim.email, "correct horse battery");
    expect(again.status).toBe(403);
    expect(JSON.stringify(again.body)).toContain("This account is disabled");
  });

  it("[auth] changing a password needs the current one, ends other sessions and the old password stops working", async () => {
    const auth = testAuth(db);
    const me = await makeUser(db, "support");
    const first = await signIn(auth, me.email, "correct horse battery");
    const second = await signIn(auth, me.email, "correct horse battery");
    const session = await auth.api.getSession({ headers: new Headers({ cookie: second.cookie! }) });
    await expect(
      changePassword({ db, actor: me, input: { currentPassword: "wrong", newPassword: "a brand new passphrase" } }),
    ).rejects.toThrow("The current password is not correct");
    await changePassword({
      db,
      actor: me,
      input: { currentPassword: "correct horse battery", newPassword: "a brand new passphrase" },
      currentSessionId: session!.session.id,
    });
    expect(await getActor(auth, new Headers({ cookie: first.cookie! }))).toBeUndefined();
    expect(await getActor(auth, new Headers({ cookie: second.cookie! }))).toBeDefined();
    expect((await signIn(auth, me.email, "correct horse battery")).status).toBe(401);
    expect((await signIn(auth, me.email, "a brand new passphrase")).status).toBe(200);
  });

  it("[auth] sign-up is closed: only admins create accounts", async () => {
    const auth = testAuth(db);
    const res = await auth.handler(
      new Request("http://127.0.0.1:3999/api/auth/sign-up/email", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://127.0.0.1:3999" },
        body: JSON.stringify({ email: "x@example.com", password: "long enough password", name: "x" }),
      }),
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(rowsOf(await db.execute(sql`select 1 from auth_user`))).toHaveLength(0);
  });
});

describe("per-account slow-down", () => {
  it("[auth] after 5 failures an account waits before the next try, from any client address, even with the right password", async () => {
    const auth = testAuth(db);
    await makeUser(db, "ops");
    for (let i = 0; i < 5; i++)
      expect((await signIn(auth, "ops@example.com", "wrong password!", `192.0.2.${i}`)).status).toBe(401);
    const blocked = await signIn(auth, "ops@example.com", "correct horse battery", "192.0.2.99");
    expect(blocked.status).toBe(429);
    expect(JSON.stringify(blocked.body)).toMatch(/Too many failed sign-ins for this account\. Try again in \d+ s\./);
    // Time passes (the wait is 30 s after the 5th failure): the right password works and clears the count.
    await db.execute(
      sql`update auth_rate_limit set last_request = last_request - 31000 where key like 'signin-fail:%'`,
    );
    expect((await signIn(auth, "ops@example.com", "correct horse battery", "192.0.2.99")).status).toBe(200);
    expect(rowsOf(await db.execute(sql`select 1 from auth_rate_limit where key like 'signin-fail:%'`))).toHaveLength(0);
  });

  it("[auth] unknown emails are slowed down the same way, so the throttle does not reveal which accounts exist", async () => {
    const auth = testAuth(db);
    await makeUser(db, "ops");
    for (let i = 0; i < 5; i++) {
      expect((await signIn(auth, "ghost@example.com", "whatever password", `192.0.2.${i}`)).status).toBe(401);
      expect((await signIn(auth, "ops@example.com", "whatever password", `192.0.2.${i}`)).status).toBe(401);
    }
    const ghost = await signIn(auth, "ghost@example.com", "whatever password", "192.0.2.50");
    const real = await signIn(auth, "ops@example.com", "whatever password", "192.0.2.50");
    expect(ghost.status).toBe(429);
    // The same answer as for an account that exists (the seconds left may differ by a tick).
    const shape = (r: { body: unknown }) => JSON.stringify(r.body).replace(/\d+/g, "N");
    expect([ghost.status, shape(ghost)]).toEqual([real.status, shape(real)]);
    expect(shape(real)).toMatch(/Too many failed sign-ins for this account\. Try again in N s\./);
  });
});
