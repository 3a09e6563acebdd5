import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { ForbiddenError } from "@/lib/roles";
import { getActor } from "@/lib/auth/server";
import { changePassword, createUser, setUserDisabled, setUserRole } from "@/lib/auth/users";
import { requeueEvent } from "@/lib/console/requeue";
import { setupTestDb } from "../db";
import { makeUser, testAuth } from "./helpers";

const { db } = setupTestDb();
const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await db.execute(query));

describe("refused user management is audited", () => {
  it("[audit] a refused users.* verb leaves a refused audit row, like events and replays", async () => {
    const support = await makeUser(db, "support");
    const ops = await makeUser(db, "ops");
    await expect(
      createUser({
        db,
        actor: support,
        input: { email: "New@Example.com", role: "admin", password: "a long enough password" },
      }),
    ).rejects.toThrow(ForbiddenError);
    await expect(setUserRole({ db, actor: ops, input: { userId: support.id, role: "admin" } })).rejects.toThrow(
      ForbiddenError,
    );
    await expect(setUserDisabled({ db, actor: support, input: { userId: ops.id, disabled: true } })).rejects.toThrow(
      ForbiddenError,
    );
    expect(await q(sql`select actor_email, action, target, result, error from audit_log order by id`)).toEqual([
      {
        actor_email: "support@example.com",
        action: "users.create",
        target: "user:new@example.com",
        result: "refused",
        error: "support may not users: manage (needs admin)",
      },
      {
        actor_email: "ops@example.com",
        action: "users.set-role",
        target: `user:${support.id}`,
        result: "refused",
        error: "ops may not users: manage (needs admin)",
      },
      {
        actor_email: "support@example.com",
        action: "users.disable",
        target: `user:${ops.id}`,
        result: "refused",
        error: "support may not users: manage (needs admin)",
      },
    ]);
    expect(await q(sql`select email, role, banned from auth_user order by email`)).toEqual([
      { email: "ops@example.com", role: "ops", banned: false },
      { email: "support@example.com", role: "support", banned: false },
    ]);
  });

  it("[audit] a user verb stopped by the last-admin guard or a wrong current password leaves an error row with the reason", async () => {
    const admin = await makeUser(db, "admin");
    await expect(setUserRole({ db, actor: admin, input: { userId: admin.id, role: "ops" } })).rejects.toThrow(
      "at least one enabled admin must remain",
    );
    await expect(
      changePassword({ db, actor: admin, input: { currentPassword: "not it", newPassword: "a brand new passphrase" } }),
    ).rejects.toThrow("not correct");
    expect(await q(sql`select action, target, result, error from audit_log order by id`)).toEqual([
      {
        action: "users.set-role",
        target: "user:admin@example.com",
        result: "error",
        error: "at least one enabled admin must remain",
      },
      {
        action: "users.change-password",
        target: "user:admin@example.com",
        result: "error",
        error: "The current password is not correct",
      },
    ]);
  });

  it("[users] two admins demoting each other at the same time leave one admin, not none", async () => {
    const a = await makeUser(db, "admin", "a@example.com");
    const b = await makeUser(db, "admin", "b@example.com");
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled([
        setUserRole({ db, actor: a, input: { userId: b.id, role: "ops" } }),
        setUserRole({ db, actor: b, input: { userId: a.id, role: "ops" } }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(await q(sql`select count(*)::int as n from auth_user where role = 'admin'`)).toEqual([{ n: 1 }]);
      await db.execute(sql`update auth_user set role = 'admin'`);
    }
  });
});

describe("anonymous refusals cannot flood the audit log", () => {
  const forged = new Headers({ cookie: "ledger.session_token=made-up-token.made-up-signature" });

  it("[audit] 250 concurrent calls with a made-up session cookie leave one refused row per action and minute, with the count", async () => {
    const actor = await getActor(testAuth(db), forged);
    expect(actor).toBeUndefined();
    const victim = await makeUser(db, "admin");
    const calls = [
      ...Array.from({ length: 200 }, (_, i) =>
        requeueEvent({ db, actor, input: { source: "stripe", eventId: `evt_${i}` } }),
      ),
      ...Array.from({ length: 50 }, () => setUserRole({ db, actor, input: { userId: victim.id, role: "support" } })),
    ];
    const results = await Promise.allSettled(calls);
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof ForbiddenError)).toBe(true);
    expect(
      await q(
        sql`select actor_id, actor_email, action, result, (detail->>'count')::int as count from audit_log order by action`,
      ),
    ).toEqual([
      { actor_id: null, actor_email: "anonymous", action: "events.requeue", result: "refused", count: 200 },
      { actor_id: null, actor_email: "anonymous", action: "users.set-role", result: "refused", count: 50 },
    ]);
    expect(await q(sql`select role from auth_user`)).toEqual([{ role: "admin" }]);
  });

  it("[audit] after a minute the next anonymous refusal starts a new row; signed-in refusals are each recorded", async () => {
    const support = await makeUser(db, "support");
    const refuse = (actor: typeof support | undefined) =>
      expect(requeueEvent({ db, actor, input: { source: "stripe", eventId: "evt_x" } })).rejects.toThrow(
        ForbiddenError,
      );
    await refuse(undefined);
    await refuse(undefined);
    await db.execute(sql`update audit_log set at = at - interval '61 seconds'`);
    await refuse(undefined);
    await refuse(support);
    await refuse(support);
    expect(await q(sql`select actor_email, (detail->>'count')::int as count from audit_log order by id`)).toEqual([
      { actor_email: "anonymous", count: 2 },
      { actor_email: "anonymous", count: 1 },
      { actor_email: "support@example.com", count: null },
      { actor_email: "support@example.com", count: null },
    ]);
  });
});
