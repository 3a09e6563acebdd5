import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { getActor } from "@/lib/auth/server";
import { setUserDisabled } from "@/lib/auth/users";
import { setupTestDb } from "../db";
import { BASE_URL, makeUser, signIn, testAuth } from "./helpers";

const { db } = setupTestDb();
const PASSWORD = "correct horse battery";

interface Row {
  actor_id: string | null;
  actor_email: string;
  action: string;
  target: string;
  detail: Record<string, unknown>;
  result: string;
  error: string | null;
}
const auditRows = async () =>
  rowsOf<Row>(
    await db.execute(
      sql`select actor_id, actor_email, action, target, detail, result, error from audit_log order by id`,
    ),
  );

async function signOut(auth: ReturnType<typeof testAuth>, cookie: string, ip = "203.0.113.9") {
  const res = await auth.handler(
    new Request(`${BASE_URL}/api/auth/sign-out`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE_URL, cookie, "x-forwarded-for": ip },
      body: "{}",
    }),
  );
  return res.status;
}

describe("sign-ins and sign-outs in the audit log", () => {
  it("[audit] a sign-in through the auth handler leaves an ok row: who, from where, with which browser", async () => {
    const auth = testAuth(db);
    const user = await makeUser(db, "ops");
    const res = await auth.handler(
      new Request(`${BASE_URL}/api/auth/sign-in/email`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: BASE_URL,
          "x-forwarded-for": "203.0.113.7",
          "user-agent": "Mozilla/5.0 (test)",
        },
        body: JSON.stringify({ email: "ops@example.com", password: PASSWORD }),
      }),
    );
    expect(res.status).toBe(200);
    expect(await auditRows()).toEqual([
      {
        actor_id: user.id,
        actor_email: "ops@example.com",
        action: "auth.sign-in",
        target: "user:ops@example.com",
        detail: { ip: "203.0.113.7", userAgent: "Mozilla/5.0 (test)" },
        result: "ok",
        error: null,
      },
    ]);
  });

  it("[audit] a wrong password or an unknown email leaves a small refused row with the email tried, never the password", async () => {
    const auth = testAuth(db);
    await makeUser(db, "ops");
    expect((await signIn(auth, "Ops@Example.com", "not the password!", "198.51.100.4")).status).toBe(401);
    expect((await signIn(auth, "nobody@example.com", "hunter2 hunter2", "198.51.100.5")).status).toBe(401);
    const rows = await auditRows();
    expect(rows).toEqual([
      {
        actor_id: null,
        actor_email: "anonymous",
        action: "auth.sign-in-failed",
        target: "user:ops@example.com",
        detail: { ip: "198.51.100.4" },
        result: "refused",
        error: "wrong email or password",
      },
      {
        actor_id: null,
        actor_email: "anonymous",
        action: "auth.sign-in-failed",
        target: "user:nobody@example.com",
        detail: { ip: "198.51.100.5" },
        result: "refused",
        error: "wrong email or password",
      },
    ]);
    const everything = JSON.stringify(rowsOf(await db.execute(sql`select * from audit_log`)));
    expect(everything).not.toContain("not the password");
    expect(everything).not.toContain("hunter2");
  });

  it("[audit] a password typed into the email field is not kept: the row says the identifier was malformed", async () => {
    const auth = testAuth(db);
    await makeUser(db, "ops");
    const typed = ["Hunter2-MyRealPassword!", "P@ssw0rd!", "ops@example.com correct horse", "Hunter2@"];
    for (const [i, email] of typed.entries())
      expect((await signIn(auth, email, "x", `198.51.100.${20 + i}`)).status).toBeGreaterThanOrEqual(400);
    const rows = await auditRows();
    expect(rows.map((r) => [r.action, r.target, r.detail])).toEqual(
      typed.map((_, i) => ["auth.sign-in-failed", "user:(malformed email)", { ip: `198.51.100.${20 + i}` }]),
    );
    const everything = JSON.stringify(rowsOf(await db.execute(sql`select * from audit_log`))).toLowerCase();
    for (const email of typed) expect(everything).not.toContain(email.toLowerCase());
    expect(everything).not.toContain("hunter2");
    expect(everything).not.toContain("ssw0rd");
  });

  it("[audit] a well-formed address is recorded as tried, apostrophes and plus tags included", async () => {
    const auth = testAuth(db);
    for (const email of ["O'Connor+ledger@Example.com", "first.last@sub.example.org"])
      expect((await signIn(auth, email, "not the password!")).status).toBe(401);
    expect((await auditRows()).map((r) => r.target)).toEqual([
      "user:o'connor+ledger@example.com",
      "user:first.last@sub.example.org",
    ]);
  });

  it("[audit] the right password for a disabled account is refused and recorded as such", async () => {
    const auth = testAuth(db);
    const admin = await makeUser(db, "admin");
    const victim = await makeUser(db, "support");
    await setUserDisabled({ db, actor: admin, input: { userId: victim.id, disabled: true } });
    expect((await signIn(auth, victim.email, PASSWORD)).status).toBe(403);
    expect((await auditRows()).map((r) => [r.action, r.target, r.result, r.error])).toEqual([
      ["users.disable", "user:support@example.com", "ok", null],
      ["auth.sign-in-failed", "user:support@example.com", "refused", "the account is disabled"],
    ]);
  });

  it("[audit] a row stays small whatever the email: it is clipped, and nothing of the body beyond it is kept", async () => {
    const auth = testAuth(db);
    const huge = `${"a".repeat(20_000)}@example.com`;
    expect((await signIn(auth, huge, "x".repeat(200))).status).toBeGreaterThanOrEqual(400);
    const [row] = rowsOf<{ size: number; target: string }>(
      await db.execute(sql`select pg_column_size(audit_log.*) as size, target from audit_log`),
    );
    expect(row).toBeDefined();
    expect(row!.target.length).toBeLessThanOrEqual("user:".length + 320);
    expect(row!.size).toBeLessThan(1000);
  });

  it("[audit] attempts the per-account throttle refuses share one counted row per minute", async () => {
    const auth = testAuth(db);
    await makeUser(db, "ops");
    for (let i = 0; i < 5; i++) await signIn(auth, "ops@example.com", "wrong password!", `192.0.2.${i}`);
    for (let i = 0; i < 4; i++)
      expect((await signIn(auth, "ops@example.com", "wrong password!", `192.0.2.${50 + i}`)).status).toBe(429);
    const rows = await auditRows();
    expect(rows.filter((r) => r.action === "auth.sign-in-failed")).toHaveLength(5);
    const throttled = rows.filter((r) => r.action === "auth.sign-in-throttled");
    expect(throttled).toHaveLength(1);
    expect(rows.filter((r) => r.action === "auth.sign-in-rate-limited")).toEqual([]);
    expect(throttled[0]).toMatchObject({
      actor_email: "anonymous",
      target: "user:ops@example.com",
      result: "refused",
      error: "too many failed sign-ins for this account",
      detail: { ip: "192.0.2.50", count: 4 },
    });
  });

  it("[audit] sign-ins the per-client limit refuses with 429 share one counted row per minute", async () => {
    const auth = testAuth(db, { signInPerMinute: 2 });
    await makeUser(db, "ops");
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await signIn(auth, "ops@example.com", "wrong password!", "192.0.2.77")).status);
    expect(statuses).toEqual([401, 401, 429, 429, 429]);
    const rows = await auditRows();
    expect(rows.filter((r) => r.action === "auth.sign-in-failed")).toHaveLength(2);
    const limited = rows.filter((r) => r.action === "auth.sign-in-rate-limited");
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({
      actor_id: null,
      actor_email: "anonymous",
      target: "client:192.0.2.77",
      result: "refused",
      error: "too many sign-ins from this client address",
      detail: { ip: "192.0.2.77", count: 3 },
    });
    expect(JSON.stringify(rows)).not.toContain("wrong password");
  });

  it("[audit] signing out leaves a row; a session that merely expires does not", async () => {
    const auth = testAuth(db);
    const user = await makeUser(db, "support");
    const first = await signIn(auth, user.email, PASSWORD);
    expect(await signOut(auth, first.cookie!)).toBe(200);
    expect(await getActor(auth, new Headers({ cookie: first.cookie! }))).toBeUndefined();

    const second = await signIn(auth, user.email, PASSWORD);
    await db.execute(sql`update auth_session set expires_at = now() - interval '1 second'`);
    expect(await getActor(auth, new Headers({ cookie: second.cookie! }))).toBeUndefined();

    expect((await auditRows()).map((r) => [r.action, r.actor_id, r.actor_email, r.target, r.detail])).toEqual([
      ["auth.sign-in", user.id, user.email, `user:${user.email}`, { ip: "203.0.113.7" }],
      ["auth.sign-out", user.id, user.email, `user:${user.email}`, { ip: "203.0.113.9" }],
      ["auth.sign-in", user.id, user.email, `user:${user.email}`, { ip: "203.0.113.7" }],
    ]);
  });

  it("[audit] signing out without a session records nothing", async () => {
    const auth = testAuth(db);
    expect(await signOut(auth, "ledger.session_token=forged.value")).toBe(200);
    expect(await auditRows()).toEqual([]);
  });
});
