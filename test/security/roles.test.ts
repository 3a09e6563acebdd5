import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { listAudit } from "@/lib/audit/log";
import { requirePermission } from "@/lib/audit/audited";
import { bootstrapFirstAdmin, completeSetup, isSetupTokenValid } from "@/lib/auth/bootstrap";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { changePassword, createUser, listUsers, setUserDisabled, setUserRole } from "@/lib/auth/users";
import { handlerLookup } from "@/lib/handlers/registry";
import { getEntityTimeline } from "@/lib/console/entity-timeline";
import { exportEvent, getEventDetail } from "@/lib/console/event-detail";
import { listEvents } from "@/lib/console/list-events";
import { getDeliverySeries } from "@/lib/console/delivery-series";
import { getBacklog, getFailingTypes, getStatusCounts, listDeadEvents } from "@/lib/console/overview";
import { processEventNow, requeueEvent } from "@/lib/console/requeue";
import { countRequeueable, requeueMatching } from "@/lib/console/requeue-matching";
import { ConflictError } from "@/lib/errors";
import { cancelReplayRun, listReplayRuns, reopenReplayRun, startReplayRun } from "@/lib/replay/runs";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { makeUser } from "../auth/helpers";
import { setupTestDb } from "../db";
import { claim } from "../worker/helpers";

/**
 * Every lib verb a server action in app/**\/actions.ts calls to change state, called as support and
 * with no session: each is refused with ForbiddenError, leaves its refused audit row (aggregated per
 * action and minute when anonymous), and changes nothing. test/auth/roles.test.ts has the full role
 * matrix of the user and event verbs; this adds the bulk requeue, the replay verbs, the account verb and
 * the refusal rows of each. And the first-admin setup link: used once, never twice.
 */
const { db } = setupTestDb();

const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await db.execute(query));
const lease = { owner: "roles-test", leaseMs: 60_000 };
const workerCtx = {
  policy: { maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 },
  handlers: handlerLookup(),
  workerId: "console",
  leaseMs: 30_000,
};
const noSecrets = () => Promise.resolve(undefined);

async function deadEvent(id: string) {
  await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: id }));
  await db.execute(sql`update webhook_event_state set status = 'dead', attempts = 3 where event_id = ${id}`);
}

/** Everything a refused verb could have changed (the audit log is checked on its own). */
async function snapshot() {
  return {
    events: await q(
      sql`select source, event_id, status, attempts, attempts_base, next_trigger, next_actor, lease_token from webhook_event order by event_id`,
    ),
    attempts: await q(sql`select count(*)::int as n from webhook_attempt`),
    runs: await q(sql`select id, status, lease_owner, last_error from replay_run order by id`),
    users: await q(sql`select id, email, role, banned from auth_user order by email`),
    passwords: await q(sql`select user_id, password from auth_account order by user_id`),
    sessions: await q(sql`select count(*)::int as n from auth_session`),
  };
}

interface Fixture {
  ops: Actor;
  admin: Actor;
  target: Actor;
  runId: number;
}

async function fixture(): Promise<Fixture> {
  const ops = await makeUser(db, "ops");
  const admin = await makeUser(db, "admin");
  const target = await makeUser(db, "support", "target@example.com");
  await deadEvent("evt_dead");
  const run = await startReplayRun({
    db,
    actor: ops,
    input: { source: "stripe", since: "2026-01-01T00:00:00Z", until: "2026-01-02T00:00:00Z" },
    lease,
  });
  return { ops, admin, target, runId: run.id };
}

interface Verb {
  /** The lib verb, and the server action that calls it. */
  name: string;
  /** The audit action its refusal is recorded under. */
  action: string;
  /** The least role that may call it. */
  least: "ops" | "admin" | "support";
  /** Puts the fixture in the state the verb acts on (before the snapshot is taken). */
  prepare?: (f: Fixture) => Promise<void>;
  run: (actor: Actor | undefined, f: Fixture) => Promise<unknown>;
}

const VERBS: Verb[] = [
  {
    name: "requeueEvent (requeueEventAction)",
    action: "events.requeue",
    least: "ops",
    run: (actor) => requeueEvent({ db, actor, input: { source: "stripe", eventId: "evt_dead" } }),
  },
  {
    name: "processEventNow (processNowAction)",
    action: "events.process-now",
    least: "ops",
    run: (actor) => processEventNow({ db, actor, input: { source: "stripe", eventId: "evt_dead" }, ctx: workerCtx }),
  },
  {
    name: "requeueMatching (requeueMatchingAction)",
    action: "events.requeue-bulk",
    least: "ops",
    run: (actor) => requeueMatching({ db, actor, input: { filter: { status: ["dead"] }, confirmed: 1 } }),
  },
  {
    name: "requirePermission replay.start (previewReplayAction, startReplayAction, …)",
    action: "replay.start",
    least: "ops",
    run: (actor) => requirePermission(db, actor, "replay.start", { action: "replay.start", target: "replay:preview" }),
  },
  {
    name: "startReplayRun (launchReplay)",
    action: "replay.start",
    least: "ops",
    run: (actor) => startReplayRun({ db, actor, input: { source: "stripe", since: "2026-01-01T00:00:00Z" }, lease }),
  },
  {
    name: "cancelReplayRun (cancelReplayAction)",
    action: "replay.cancel",
    least: "ops",
    run: (actor, f) => cancelReplayRun({ db, actor, id: f.runId }),
  },
  {
    name: "reopenReplayRun (resumeReplayAction)",
    action: "replay.resume",
    least: "ops",
    prepare: async (f) => {
      await db.execute(
        sql`update replay_run set status = 'failed', lease_owner = null, lease_expires_at = null where id = ${f.runId}`,
      );
    },
    run: (actor, f) => reopenReplayRun({ db, actor, id: f.runId, lease }),
  },
  {
    name: "createUser (createUserAction)",
    action: "users.create",
    least: "admin",
    run: (actor) =>
      createUser({
        db,
        actor,
        input: { email: "sneaky@example.com", role: "admin", password: "a long enough password" },
      }),
  },
  {
    name: "setUserRole (setUserRoleAction)",
    action: "users.set-role",
    least: "admin",
    run: (actor, f) => setUserRole({ db, actor, input: { userId: f.target.id, role: "admin" } }),
  },
  {
    name: "setUserDisabled (setUserDisabledAction)",
    action: "users.disable",
    least: "admin",
    run: (actor, f) => setUserDisabled({ db, actor, input: { userId: f.target.id, disabled: true } }),
  },
  {
    name: "changePassword (changePasswordAction)",
    action: "users.change-password",
    least: "support",
    run: (actor) =>
      changePassword({
        db,
        actor,
        input: { currentPassword: "correct horse battery", newPassword: "an attacker's new password" },
      }),
  },
];

const auditRows = () =>
  q<{ actor_id: string | null; actor_email: string; action: string; result: string; count: number | null }>(
    sql`select actor_id, actor_email, action, result, (detail->>'count')::int as count from audit_log order by id`,
  );

describe("every state-changing verb behind a server action refuses support and anonymous callers", () => {
  for (const verb of VERBS) {
    if (verb.least !== "support")
      it(`[roles] ${verb.name} as support: ForbiddenError, a refused audit row, nothing changed`, async () => {
        const f = await fixture();
        await verb.prepare?.(f);
        const support = await makeUser(db, "support");
        const before = await snapshot();
        const audit = (await auditRows()).length;
        await expect(verb.run(support, f)).rejects.toThrow(ForbiddenError);
        expect(await snapshot()).toEqual(before);
        expect((await auditRows()).slice(audit)).toEqual([
          { actor_id: support.id, actor_email: support.email, action: verb.action, result: "refused", count: null },
        ]);
      });

    it(`[roles] ${verb.name} with no session: ForbiddenError, an anonymous refused row, nothing changed`, async () => {
      const f = await fixture();
      await verb.prepare?.(f);
      const before = await snapshot();
      const audit = (await auditRows()).length;
      const calls = await Promise.allSettled([verb.run(undefined, f), verb.run(undefined, f), verb.run(undefined, f)]);
      expect(calls.every((c) => c.status === "rejected" && c.reason instanceof ForbiddenError)).toBe(true);
      expect(await snapshot()).toEqual(before);
      expect((await auditRows()).slice(audit)).toEqual([
        { actor_id: null, actor_email: "anonymous", action: verb.action, result: "refused", count: 3 },
      ]);
    });

    // The control: the same call by the least role allowed succeeds, so the refusals above are the role check's.
    it(`[roles] ${verb.name} as ${verb.least} is allowed, and audited ok`, async () => {
      const f = await fixture();
      await verb.prepare?.(f);
      const actor = verb.least === "ops" ? f.ops : verb.least === "admin" ? f.admin : f.target;
      const audit = (await auditRows()).length;
      await verb.run(actor, f);
      const rows = (await auditRows()).slice(audit);
      if (verb.action === "replay.start" && verb.name.startsWith("requirePermission")) expect(rows).toEqual([]);
      else
        expect(rows).toEqual([
          { actor_id: actor.id, actor_email: actor.email, action: verb.action, result: "ok", count: null },
        ]);
    });
  }

  it("[roles] countRequeueable (countRequeueableAction) needs ops: support and anonymous are refused", async () => {
    await deadEvent("evt_dead");
    const support = await makeUser(db, "support");
    await expect(countRequeueable(db, support, { status: ["dead"] })).rejects.toThrow(ForbiddenError);
    await expect(countRequeueable(db, undefined, { status: ["dead"] })).rejects.toThrow(ForbiddenError);
    expect(await countRequeueable(db, await makeUser(db, "ops"), { status: ["dead"] })).toBe(1);
  });

  it("[roles] every read behind a console page refuses an anonymous caller; users.manage refuses ops too", async () => {
    const reads: [string, () => Promise<unknown>][] = [
      ["listEvents", () => listEvents(db, undefined, {})],
      ["getEventDetail", () => getEventDetail(db, undefined, { source: "stripe", eventId: "evt_dead" }, noSecrets)],
      ["exportEvent", () => exportEvent(db, undefined, { source: "stripe", eventId: "evt_dead" }, noSecrets)],
      [
        "getEntityTimeline",
        () => getEntityTimeline(db, undefined, { source: "stripe", entityType: "invoice", entityId: "x" }),
      ],
      ["listAudit", () => listAudit(db, undefined)],
      ["listReplayRuns", () => listReplayRuns({ db, actor: undefined })],
      ["listUsers", () => listUsers({ db, actor: undefined })],
      ["getStatusCounts", () => getStatusCounts(db, undefined)],
      ["getBacklog", () => getBacklog(db, undefined)],
      ["getDeliverySeries", () => getDeliverySeries(db, undefined, { hours: 24, bucketMinutes: 10 })],
      ["getFailingTypes", () => getFailingTypes(db, undefined)],
      ["listDeadEvents", () => listDeadEvents(db, undefined)],
    ];
    for (const [name, read] of reads) await expect(read(), name).rejects.toThrow(ForbiddenError);
    const ops = await makeUser(db, "ops");
    await expect(listUsers({ db, actor: ops })).rejects.toThrow(ForbiddenError);
    // exportEvent audits an ok export; a refused one writes nothing that says it happened.
    expect(await q(sql`select 1 from audit_log where result = 'ok'`)).toEqual([]);
  });

  it("[roles] a forged actor role string (not one of the three) is refused everything", async () => {
    const f = await fixture();
    const forged = { ...f.target, role: "superadmin" as Actor["role"] };
    const before = await snapshot();
    for (const verb of VERBS) await expect(verb.run(forged, f), verb.name).rejects.toThrow(ForbiddenError);
    const after = await snapshot();
    expect(after.users).toEqual(before.users);
    expect(after.passwords).toEqual(before.passwords);
    expect(after.events).toEqual(before.events);
  });
});

describe("the first-admin setup link", () => {
  const baseURL = "http://127.0.0.1:3999";
  const tokenOf = (r: Awaited<ReturnType<typeof bootstrapFirstAdmin>>) =>
    new URL((r as { url: string }).url).searchParams.get("token")!;
  const admins = () => q(sql`select email, role from auth_user order by email`);

  it("[setup] a used link cannot create a second admin, and after it no new link is minted", async () => {
    const token = tokenOf(await bootstrapFirstAdmin(db, { baseURL }));
    await completeSetup(db, { token, email: "first@example.com", password: "a long admin password" });
    await expect(
      completeSetup(db, { token, email: "second@example.com", password: "a long admin password" }),
    ).rejects.toThrow(ConflictError);
    await expect(
      completeSetup(db, { token, email: "first@example.com", password: "another admin password" }),
    ).rejects.toThrow(ConflictError);
    expect(await admins()).toEqual([{ email: "first@example.com", role: "admin" }]);
    expect(await isSetupTokenValid(db, token)).toBe(false);
    expect(await bootstrapFirstAdmin(db, { baseURL })).toEqual({ kind: "exists" });
    expect(await q(sql`select 1 from auth_verification`)).toEqual([]);
    expect(await q(sql`select action, target, result from audit_log`)).toEqual([
      { action: "users.setup-admin", target: "user:first@example.com", result: "ok" },
    ]);
  });

  it("[setup] five concurrent uses of one link make exactly one admin", async () => {
    const token = tokenOf(await bootstrapFirstAdmin(db, { baseURL }));
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) =>
        completeSetup(db, { token, email: `racer${i}@example.com`, password: "a long admin password" }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(
      results
        .filter((r) => r.status === "rejected")
        .every((r) => (r as PromiseRejectedResult).reason instanceof ConflictError),
    ).toBe(true);
    expect(await admins()).toHaveLength(1);
  });

  it("[setup] a link minted before a user existed is dead once one does; a wrong token neither works nor burns the real link", async () => {
    const token = tokenOf(await bootstrapFirstAdmin(db, { baseURL }));
    const guess = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    await expect(
      completeSetup(db, { token: guess, email: "guess@example.com", password: "a long admin password" }),
    ).rejects.toThrow(ConflictError);
    await expect(
      completeSetup(db, { token: "", email: "empty@example.com", password: "a long admin password" }),
    ).rejects.toThrow();
    expect(await isSetupTokenValid(db, token)).toBe(true);
    await makeUser(db, "admin", "env-admin@example.com");
    await expect(
      completeSetup(db, { token, email: "late@example.com", password: "a long admin password" }),
    ).rejects.toThrow(ConflictError);
    expect(await admins()).toEqual([{ email: "env-admin@example.com", role: "admin" }]);
  });
});
