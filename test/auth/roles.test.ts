import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { ROLES, type Role } from "@/db/schema";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { createUser, listUsers, setUserDisabled, setUserRole } from "@/lib/auth/users";
import { handlerLookup } from "@/lib/handlers/registry";
import { processEventNow, requeueEvent } from "@/lib/console/requeue";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim } from "../worker/helpers";
import { makeUser } from "./helpers";

const { db } = setupTestDb();

const ctx = {
  policy: { maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 },
  handlers: handlerLookup(),
  workerId: "console",
  leaseMs: 30_000,
};

async function deadEvent(id: string) {
  await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: id }));
  await db.execute(sql`update webhook_event_state set status = 'dead', attempts = 3 where event_id = ${id}`);
}

/** Every lib verb that changes state, with the least role allowed to call it. */
const VERBS: { name: string; least: Role; run: (actor: Actor, n: number) => Promise<unknown> }[] = [
  {
    name: "requeueEvent",
    least: "ops",
    run: async (actor, n) => {
      await deadEvent(`evt_rq${n}`);
      return requeueEvent({ db, actor, input: { source: "stripe", eventId: `evt_rq${n}` } });
    },
  },
  {
    name: "processEventNow",
    least: "ops",
    run: async (actor, n) => {
      await deadEvent(`evt_pn${n}`);
      return processEventNow({ db, actor, input: { source: "stripe", eventId: `evt_pn${n}` }, ctx });
    },
  },
  {
    name: "createUser",
    least: "admin",
    run: (actor, n) =>
      createUser({
        db,
        actor,
        input: { email: `new${n}@example.com`, role: "support", password: "a long enough password" },
      }),
  },
  {
    name: "setUserRole",
    least: "admin",
    run: async (actor, n) => {
      const u = await makeUser(db, "support", `role${n}@example.com`);
      return setUserRole({ db, actor, input: { userId: u.id, role: "ops" } });
    },
  },
  {
    name: "setUserDisabled",
    least: "admin",
    run: async (actor, n) => {
      const u = await makeUser(db, "support", `dis${n}@example.com`);
      return setUserDisabled({ db, actor, input: { userId: u.id, disabled: true } });
    },
  },
  { name: "listUsers", least: "admin", run: (actor) => listUsers({ db, actor }) },
];

const RANK: Record<Role, number> = { support: 1, ops: 2, admin: 3 };

describe("the role matrix", () => {
  let n = 0;
  for (const verb of VERBS)
    for (const role of ROLES) {
      const allowed = RANK[role] >= RANK[verb.least];
      it(`[roles] ${verb.name} as ${role} is ${allowed ? "allowed" : "refused"}`, async () => {
        const actor = await makeUser(db, role, `${role}-${++n}@example.com`);
        const run = verb.run(actor, n);
        if (allowed) await expect(run).resolves.not.toThrow();
        else await expect(run).rejects.toThrow(ForbiddenError);
      });
    }

  it("[roles] an anonymous caller is refused every state-changing verb", async () => {
    for (const verb of VERBS)
      await expect(verb.run(undefined as unknown as Actor, ++n)).rejects.toThrow(ForbiddenError);
  });
});

describe("the audit log", () => {
  it("[audit] a refused call leaves a refused audit row and changes nothing", async () => {
    const support = await makeUser(db, "support");
    await deadEvent("evt_refused");
    await expect(
      requeueEvent({ db, actor: support, input: { source: "stripe", eventId: "evt_refused" } }),
    ).rejects.toThrow("support may not events: requeue (needs ops)");
    expect(rowsOf(await db.execute(sql`select status from webhook_event`))).toEqual([{ status: "dead" }]);
    expect(rowsOf(await db.execute(sql`select actor_email, action, target, result from audit_log`))).toEqual([
      {
        actor_email: "support@example.com",
        action: "events.requeue",
        target: "event:stripe/evt_refused",
        result: "refused",
      },
    ]);
  });

  it("[audit] a successful requeue and its audit row are one transaction: if the audit insert fails, the requeue is undone", async () => {
    const ops = await makeUser(db, "ops");
    await deadEvent("evt_atomic");
    await db.execute(
      sql`create or replace function fail_audit() returns trigger language plpgsql as $$
          begin
            if new.result = 'ok' then raise exception 'audit store broken'; end if;
            return new;
          end $$`,
    );
    await db.execute(
      sql`create trigger fail_audit before insert on audit_log for each row execute function fail_audit()`,
    );
    try {
      await expect(
        requeueEvent({ db, actor: ops, input: { source: "stripe", eventId: "evt_atomic" } }),
      ).rejects.toThrow();
      expect(rowsOf(await db.execute(sql`select status, next_trigger from webhook_event`))).toEqual([
        { status: "dead", next_trigger: "auto" },
      ]);
    } finally {
      await db.execute(sql`drop trigger fail_audit on audit_log`);
    }
    await requeueEvent({ db, actor: ops, input: { source: "stripe", eventId: "evt_atomic" } });
    expect(rowsOf(await db.execute(sql`select status from webhook_event`))).toEqual([{ status: "claimed" }]);
    expect(rowsOf(await db.execute(sql`select result, error from audit_log order by id`))).toEqual([
      { result: "error", error: expect.stringContaining("audit store broken") as unknown },
      { result: "ok", error: null },
    ]);
  });

  it("[audit] a verb that fails on the data (requeue of a settled event) records error, with the reason", async () => {
    const ops = await makeUser(db, "ops");
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_settled" }));
    await db.execute(sql`update webhook_event_state set status = 'settled'`);
    await expect(requeueEvent({ db, actor: ops, input: { source: "stripe", eventId: "evt_settled" } })).rejects.toThrow(
      "is settled",
    );
    expect(rowsOf(await db.execute(sql`select result, error from audit_log`))).toEqual([
      { result: "error", error: "event evt_settled is settled; only failed or dead events can be requeued" },
    ]);
  });

  it("[audit] user management is audited with what changed", async () => {
    const admin = await makeUser(db, "admin");
    const { id } = await createUser({
      db,
      actor: admin,
      input: { email: "New.Person@Example.com", role: "support", password: "a long enough password" },
    });
    await setUserRole({ db, actor: admin, input: { userId: id, role: "ops" } });
    await setUserDisabled({ db, actor: admin, input: { userId: id, disabled: true } });
    expect(rowsOf(await db.execute(sql`select action, target, detail, result from audit_log order by id`))).toEqual([
      { action: "users.create", target: "user:new.person@example.com", detail: { role: "support" }, result: "ok" },
      {
        action: "users.set-role",
        target: "user:new.person@example.com",
        detail: { from: "support", to: "ops" },
        result: "ok",
      },
      { action: "users.disable", target: "user:new.person@example.com", detail: { sessionsEnded: 0 }, result: "ok" },
    ]);
  });

  it("[users] the last enabled admin cannot be demoted or disabled, and nobody disables themselves", async () => {
    const admin = await makeUser(db, "admin");
    await expect(setUserRole({ db, actor: admin, input: { userId: admin.id, role: "ops" } })).rejects.toThrow(
      "at least one enabled admin must remain",
    );
    await expect(setUserDisabled({ db, actor: admin, input: { userId: admin.id, disabled: true } })).rejects.toThrow(
      "you cannot disable your own account",
    );
    await expect(
      createUser({
        db,
        actor: admin,
        input: { email: "admin@example.com", role: "ops", password: "a long enough password" },
      }),
    ).rejects.toThrow("already exists");
    await expect(
      createUser({ db, actor: admin, input: { email: "short@example.com", role: "ops", password: "short" } }),
    ).rejects.toThrow("at least 12 characters");
  });
});
