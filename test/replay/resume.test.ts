import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { ConflictError } from "@/lib/errors";
import { driveReplayRun } from "@/lib/replay/drive";
import { resumeOrphanedRuns, startReplayResumer } from "@/lib/replay/resume";
import {
  cancelReplayRun,
  createReplayRunAs,
  reopenReplayRun,
  getReplayRun,
  listOrphanedRuns,
  listReplayRuns,
  startReplayRun,
  takeReplayRun,
} from "@/lib/replay/runs";
import { setupTestDb } from "../db";
import { query } from "../worker/helpers";
import { startFakeApi, stripeRoute, type FakeApi } from "./fake-api";
import { apiConfig, replay, seedLedger, SINCE, STRIPE_KEY, storyEvents, testHost, UNTIL } from "./helpers";

const { db } = setupTestDb();
let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const OPS: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
const SUPPORT: Actor = { id: "u-sup", email: "support@example.com", role: "support" };

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("replay runs survive their process", () => {
  it("[replay] a run stopped mid-page (app shutdown) is resumed from its cursor by the app's resumer, with no loss or double counting", async () => {
    const events = storyEvents(500);
    const missing = events.filter((_, i) => i % 4 === 0).map((e) => e.id);
    await seedLedger(
      db,
      "stripe",
      events.filter((_, i) => i % 4 !== 0),
    );
    api = await startFakeApi(stripeRoute(events, STRIPE_KEY));
    let hang = true;
    const page3 = events[500 - 200]!.id;
    api.fault = (req) => (hang && req.query.get("starting_after") === page3 ? "hang" : undefined);
    const config = apiConfig({ stripe: api.url });

    const stop = new AbortController();
    const first = replay(
      testHost(db, config, { owner: "app-before-restart" }),
      { source: "stripe", since: SINCE, until: UNTIL },
      stop.signal,
    );
    await until(() => api!.requests.some((r) => r.query.get("starting_after") === page3));
    stop.abort(new Error("SIGTERM"));
    const interrupted = await first;
    expect(interrupted).toMatchObject({
      interrupted: true,
      status: "running",
      leaseOwner: null,
      cursor: page3,
      fetched: 200,
      pages: 2,
    });

    hang = false;
    const resumer = startReplayResumer(testHost(db, config, { owner: "app-after-restart" }), 50);
    const done = await until(async () => {
      const r = await getReplayRun(db, interrupted.id);
      return r?.status === "succeeded" ? r : undefined;
    });
    await resumer.stop();
    expect(done).toMatchObject({
      fetched: 500,
      new: missing.length,
      duplicates: 500 - missing.length,
      failed: 0,
      pages: 5,
    });
    expect(await query(db, sql`select count(*)::int as n from webhook_event where via = 'replay'`)).toEqual([
      { n: missing.length },
    ]);
    expect(await query(db, sql`select count(*)::int as n from webhook_delivery where via = 'replay'`)).toEqual([
      { n: missing.length },
    ]);
  });

  it("[replay] a run whose process died keeps its lease until it lapses: no one takes it over before, the resumer does after", async () => {
    api = await startFakeApi(stripeRoute(storyEvents(120), STRIPE_KEY));
    const dead = await createReplayRunAs({
      db,
      who: "cli:ops",
      input: { source: "stripe", since: SINCE, until: UNTIL },
      lease: { owner: "cli@gone:123", leaseMs: 60_000 },
    });
    const host = testHost(db, apiConfig({ stripe: api.url }), { owner: "app" });
    await expect(takeReplayRun(db, dead.id, host.lease)).rejects.toThrow(ConflictError);
    await expect(takeReplayRun(db, dead.id, host.lease)).rejects.toThrow(
      `replay run ${dead.id} is being driven by ${dead.leaseOwner} (lease until ${dead.leaseExpiresAt!.toISOString()})`,
    );
    expect(dead.leaseOwner).toMatch(/^cli@gone:123#[0-9a-f]{8}$/);
    expect(await listOrphanedRuns(db)).toEqual([]);
    expect(await resumeOrphanedRuns(host)).toEqual([]);

    await db.execute(sql`update replay_run set lease_expires_at = now() - interval '1 second' where id = ${dead.id}`);
    expect(await resumeOrphanedRuns(host)).toEqual([dead.id]);
    expect(await getReplayRun(db, dead.id)).toMatchObject({
      status: "succeeded",
      fetched: 120,
      new: 120,
      leaseOwner: null,
    });
  });

  it("[replay] a lease lapsed mid-page: a new drive takes the run, the first stops, pages count once", async () => {
    const events = storyEvents(300);
    const missing = events.filter((_, i) => i % 3 === 0).map((e) => e.id);
    await seedLedger(
      db,
      "stripe",
      events.filter((_, i) => i % 3 !== 0),
    );
    api = await startFakeApi(stripeRoute(events, STRIPE_KEY));
    const page2 = events[300 - 100]!.id;
    let stalled = 0;
    let unstall!: () => void;
    const resume = new Promise<void>((r) => (unstall = r));
    // The first request for page 2 stalls (a long GC pause, a slow provider) past the run's lease.
    api.fault = async (req) => {
      if (req.query.get("starting_after") === page2 && stalled++ === 0) await resume;
      return undefined;
    };
    const host = testHost(db, apiConfig({ stripe: api.url }), { owner: "app@one-process" });
    const first = replay(host, { source: "stripe", since: SINCE, until: UNTIL });
    await until(() => stalled > 0);
    await db.execute(
      sql`update replay_run set lease_expires_at = now() - interval '1 second' where status = 'running'`,
    );
    // The same process's resumer sees a lapsed lease and drives the run with a lease of its own.
    const [id] = await resumeOrphanedRuns(host);
    unstall();
    const stale = await first;
    expect(stale.interrupted).toBe(true);
    expect(await getReplayRun(db, id!)).toMatchObject({
      status: "succeeded",
      fetched: 300,
      pages: 3,
      new: missing.length,
      duplicates: 300 - missing.length,
    });
    expect(await query(db, sql`select count(*)::int as n from webhook_event where via = 'replay'`)).toEqual([
      { n: missing.length },
    ]);
  });

  it("[replay] a run that loses its lease mid-page writes nothing for that page: its claims roll back with its counts", async () => {
    const events = storyEvents(300);
    const missing = new Set(events.filter((_, i) => i % 3 === 0).map((e) => e.id));
    await seedLedger(
      db,
      "stripe",
      events.filter((e) => !missing.has(e.id)),
    );
    api = await startFakeApi(stripeRoute(events, STRIPE_KEY));
    const page2 = events[300 - 100]!.id;
    // Another process takes the run over while this one is fetching page 2.
    api.fault = async (req) => {
      if (req.query.get("starting_after") === page2)
        await db.execute(sql`update replay_run set lease_owner = 'thief' where status = 'running'`);
      return undefined;
    };
    const out = await replay(testHost(db, apiConfig({ stripe: api.url })), {
      source: "stripe",
      since: SINCE,
      until: UNTIL,
    });
    expect(out).toMatchObject({
      interrupted: true,
      status: "running",
      leaseOwner: "thief",
      fetched: 100,
      pages: 1,
      cursor: page2,
    });
    const page1Missing = events
      .slice(200)
      .filter((e) => missing.has(e.id))
      .map((e) => e.id)
      .sort();
    expect(
      (
        await query<{ event_id: string }>(
          db,
          sql`select event_id from webhook_event where via = 'replay' order by event_id`,
        )
      ).map((r) => r.event_id),
    ).toEqual(page1Missing);
  });

  it("[replay] a run cancelled by ops stops at its next heartbeat, even while a page is hanging", async () => {
    const events = storyEvents(300);
    api = await startFakeApi(stripeRoute(events, STRIPE_KEY));
    api.fault = (req) => (req.query.get("starting_after") ? "hang" : undefined);
    const host = testHost(db, apiConfig({ stripe: api.url }), { lease: { owner: "console", leaseMs: 1_000 } });
    const run = await startReplayRun({
      db,
      actor: OPS,
      input: { source: "stripe", since: SINCE, until: UNTIL },
      lease: host.lease,
    });
    const driving = driveReplayRun(run, host);
    await until(() => api!.requests.length >= 2);
    await cancelReplayRun({ db, actor: OPS, id: run.id });
    const stopped = await driving;
    expect(stopped).toMatchObject({
      interrupted: true,
      status: "cancelled",
      lastError: "cancelled by ops@example.com",
      fetched: 100,
      pages: 1,
    });
    expect(await query(db, sql`select action, target, result from audit_log order by id`)).toEqual([
      { action: "replay.start", target: "replay:stripe", result: "ok" },
      { action: "replay.cancel", target: `replay:${run.id}`, result: "ok" },
    ]);
  });

  it("[replay] support sees the runs but may not start or cancel one, and the refusal is audited", async () => {
    const lease = { owner: "console", leaseMs: 60_000 };
    await expect(
      startReplayRun({ db, actor: SUPPORT, input: { source: "stripe", since: SINCE }, lease }),
    ).rejects.toThrow(ForbiddenError);
    const run = await startReplayRun({
      db,
      actor: OPS,
      input: { source: "stripe", since: SINCE, until: UNTIL, dryRun: true },
      lease,
    });
    await expect(cancelReplayRun({ db, actor: SUPPORT, id: run.id })).rejects.toThrow(
      "support may not replay: start (needs ops)",
    );
    await expect(reopenReplayRun({ db, actor: SUPPORT, id: run.id, lease })).rejects.toThrow(ForbiddenError);
    expect((await listReplayRuns({ db, actor: SUPPORT })).map((r) => [r.id, r.actor, r.dryRun])).toEqual([
      [run.id, "ops@example.com", true],
    ]);
    await expect(listReplayRuns({ db, actor: undefined })).rejects.toThrow(ForbiddenError);
    expect(await query(db, sql`select actor_email, action, result from audit_log order by id`)).toEqual([
      { actor_email: "support@example.com", action: "replay.start", result: "refused" },
      { actor_email: "ops@example.com", action: "replay.preview", result: "ok" },
      { actor_email: "support@example.com", action: "replay.cancel", result: "refused" },
      { actor_email: "support@example.com", action: "replay.resume", result: "refused" },
    ]);
  });

  it("[replay] a window that ends before it starts, or a bad GitHub hook, is refused before anything is recorded", async () => {
    const lease = { owner: "console", leaseMs: 60_000 };
    await expect(
      startReplayRun({ db, actor: OPS, input: { source: "stripe", since: UNTIL, until: SINCE }, lease }),
    ).rejects.toThrow("until must be after since");
    await expect(
      startReplayRun({ db, actor: OPS, input: { source: "github", since: SINCE, githubHook: "not a hook" }, lease }),
    ).rejects.toThrow("owner/repo/hook_id");
    expect(await query(db, sql`select count(*)::int as n from replay_run`)).toEqual([{ n: 0 }]);
  });
});
