import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { githubIssuesOpened } from "@/lib/samples/github";
import { getRetentionPreview, previewRetention } from "@/lib/retention/preview";
import { pruneSettledEvents, SnapshotWaitError } from "@/lib/retention/prune";
import { runRetention } from "@/lib/retention/run";
import { listRetentionRuns, startRetentionRun } from "@/lib/retention/runs";
import { claimOne } from "@/test/claim";
import { setupTestDb, testDatabaseUrl } from "../db";
import { depsFor, post } from "../receiver/harness";
import { signGithub, signShopify, TEST_SECRETS } from "../sign";
import { drain, testSettings } from "../worker/helpers";
import { age, deliverStripe, settings, tableCounts } from "./helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const support = { id: "u1", email: "support@example.com", role: "support" } as const;

async function settledHistory(n: number) {
  const bodies: string[] = [];
  for (let i = 1; i <= n; i++) bodies.push((await deliverStripe(db, `evt_${i}`)).body);
  await deliverStripe(db, "evt_1"); // a retry: a second delivery row
  await drain(db, testSettings());
  return bodies;
}

describe("retention", () => {
  it("[retention] prunes settled events older than RETENTION_DAYS with their deliveries, attempts and timeline rows, leaving a tombstone each", async () => {
    const bodies = await settledHistory(7);
    await age(db, 100, ["evt_1", "evt_2", "evt_3", "evt_4", "evt_5"]);
    const before = await tableCounts(db);
    expect(before).toMatchObject({ events: 7, deliveries: 8, attempts: 7, transitions: 7, tombstones: 0 });

    const run = await runRetention(db, settings(), { actor: "test" });
    expect(run).toMatchObject({ status: "succeeded", events: 5, deliveries: 6, attempts: 5, transitions: 5 });
    expect(run!.batches).toBe(2); // batches of 3
    expect(await tableCounts(db)).toEqual({ events: 2, deliveries: 2, attempts: 2, transitions: 2, tombstones: 5 });
    const tombstones = rowsOf<{ event_id: string; sha: string; body_key: boolean }>(
      await db.execute(
        sql`select event_id, encode(body_sha256, 'hex') as sha, body_key from webhook_tombstone order by event_id`,
      ),
    );
    expect(tombstones[0]).toEqual({
      event_id: "evt_1",
      sha: createHash("sha256").update(bodies[0]!).digest("hex"),
      body_key: false,
    });
  });

  it("[retention] failed, dead and recent settled events are never pruned", async () => {
    await settledHistory(4);
    await db.execute(sql`update webhook_event_state set status = 'dead' where event_id = 'evt_1'`);
    await db.execute(sql`update webhook_event_state set status = 'failed' where event_id = 'evt_2'`);
    await age(db, 100, ["evt_1", "evt_2", "evt_3"]);
    // Received long ago but settled yesterday (a requeue someone just fixed): kept too.
    await db.execute(
      sql`update webhook_event_state set received_at = now() - interval '100 days', settled_at = now() - interval '1 day' where event_id = 'evt_4'`,
    );
    const preview = await previewRetention(db, settings());
    expect(preview).toMatchObject({ events: 1, deliveries: 1, attempts: 1, transitions: 1, keptUnsettled: 2 });
    const run = await runRetention(db, settings(), { actor: "test" });
    expect(run?.events).toBe(1);
    const left = rowsOf<{ event_id: string }>(await db.execute(sql`select event_id from webhook_event order by 1`));
    expect(left.map((r) => r.event_id)).toEqual(["evt_1", "evt_2", "evt_4"]);
  });

  it("[retention] a late retry of a pruned event answers 200 duplicate, records its delivery and does no work", async () => {
    await settledHistory(2);
    await age(db, 100);
    await runRetention(db, settings(), { actor: "test" });
    expect(await tableCounts(db)).toMatchObject({ events: 0, deliveries: 0, tombstones: 2 });

    const retry = await deliverStripe(db, "evt_1");
    expect(retry.res).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    expect(await tableCounts(db)).toMatchObject({ events: 0, deliveries: 1 });
    const [delivery] = rowsOf<{ claimed: boolean }>(await db.execute(sql`select claimed from webhook_delivery`));
    expect(delivery?.claimed).toBe(false);
    expect(await drain(db, testSettings())).toEqual([]);
  });

  it("[retention] a replay of a pruned event after retention is a duplicate too", async () => {
    const [body] = await settledHistory(1);
    await age(db, 100);
    await runRetention(db, settings(), { actor: "test" });
    const result = await claimOne(db, {
      source: "stripe",
      eventId: "evt_1",
      eventType: "customer.subscription.updated",
      rawBody: body!,
      headers: {},
      via: "replay",
    });
    expect(result).toEqual({ claimed: false, reprocessed: false });
    expect((await tableCounts(db)).events).toBe(0);
  });

  it("[retention] a GitHub delivery re-sent under a new delivery id after pruning is a duplicate by its body's hash", async () => {
    const body = JSON.stringify(githubIssuesOpened({ number: 7 }));
    const first = await post(depsFor(db), "github", await signGithub(body, TEST_SECRETS.github, { delivery: "d-1" }));
    expect(first.body).toMatchObject({ duplicate: false });
    await drain(db, testSettings());
    await age(db, 100);
    await runRetention(db, settings(), { actor: "test" });
    const [tomb] = rowsOf<{ body_key: boolean }>(await db.execute(sql`select body_key from webhook_tombstone`));
    expect(tomb?.body_key).toBe(true);
    const resent = await post(depsFor(db), "github", await signGithub(body, TEST_SECRETS.github, { delivery: "d-2" }));
    expect(resent).toMatchObject({ status: 200, body: { duplicate: true } });
    expect((await tableCounts(db)).events).toBe(0);
  });

  it("[retention] a pruned Shopify event's tombstone keeps its topic: its capture re-sent is a duplicate, its body on another topic a new event", async () => {
    const body = JSON.stringify({ id: 450789469, email: "jon@example.com", updated_at: "2026-11-01T10:00:00-05:00" });
    const deliver = (eventId: string, topic: string) =>
      post(depsFor(db), "shopify", signShopify(body, TEST_SECRETS.shopify, { eventId, topic }));
    expect((await deliver("e-1", "orders/create")).body).toMatchObject({ duplicate: false });
    await drain(db, testSettings());
    await age(db, 100);
    await runRetention(db, settings(), { actor: "test" });
    expect((await tableCounts(db)).events).toBe(0);

    expect((await deliver("e-forged", "orders/create")).body).toMatchObject({ duplicate: true });
    expect((await deliver("e-1", "orders/paid")).body).toMatchObject({ duplicate: false });
    const events = rowsOf<{ event_id: string }>(await db.execute(sql`select event_id from webhook_event`));
    expect(events.map((e) => e.event_id)).toEqual(["e-1:orders/paid"]);
    const tombstones = rowsOf<{ body_key: boolean; body_scope: string }>(
      await db.execute(sql`select body_key, body_scope from webhook_tombstone`),
    );
    expect(tombstones).toEqual([{ body_key: true, body_scope: "orders/create" }]);
  });

  it("[retention] expired tombstones, finished replay runs and old audit rows go; a running replay run stays", async () => {
    await db.execute(sql`insert into webhook_tombstone (source, event_id, received_at) values
      ('stripe', 'evt_old', now() - interval '500 days'), ('stripe', 'evt_kept', now() - interval '200 days')`);
    await db.execute(sql`insert into replay_run (actor, source, since, until, status, started_at, finished_at) values
      ('a', 'stripe', now(), now(), 'succeeded', now() - interval '100 days', now() - interval '100 days'),
      ('a', 'stripe', now(), now(), 'running', now() - interval '100 days', null),
      ('a', 'stripe', now(), now(), 'failed', now() - interval '1 day', now() - interval '1 day')`);
    await db.execute(sql`insert into audit_log (actor_email, action, target, result, at) values
      ('a', 'x', 'y', 'ok', now() - interval '400 days'), ('a', 'x', 'y', 'ok', now() - interval '10 days')`);
    const run = await runRetention(db, settings(), { actor: "test" });
    expect(run).toMatchObject({ tombstones: 1, replayRuns: 1, auditRows: 1 });
    const replays = rowsOf<{ status: string }>(await db.execute(sql`select status from replay_run order by id`));
    expect(replays.map((r) => r.status)).toEqual(["running", "failed"]);
    const kept = await runRetention(db, settings({ auditDays: 0 }), { actor: "test" });
    expect(kept?.auditRows).toBe(0);
  });

  it("[retention] the overview's preview counts what a run would prune, capped, for anyone who reads events", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, received_at, settled_at",
      sql`select 'stripe', 'evt_' || g, 'invoice.paid', '{}', '{}', '{}', 'settled', now() - interval '100 days', now() - interval '100 days'
      from generate_series(1, 10005) g`,
    );
    const preview = await getRetentionPreview(db, support, settings());
    expect(preview).toMatchObject({ events: 10_000, cap: 10_000, tombstones: 0 });
    expect(preview.deliveries).toBeUndefined();
    expect(preview.oldestSettledAt?.getTime()).toBeLessThan(Date.now() - 99 * 86_400_000);
    await expect(getRetentionPreview(db, undefined, settings())).rejects.toThrow(/anonymous/);
  });

  it("[retention] one run at a time: a run is skipped while another runs, or when one started within the interval", async () => {
    const first = await startRetentionRun(db, "a", settings());
    expect(first).toBeDefined();
    expect(await runRetention(db, settings(), { actor: "b" })).toBeUndefined();
    await db.execute(sql`update retention_run set status = 'succeeded', finished_at = now()`);
    expect(await runRetention(db, settings(), { actor: "b", minIntervalMs: 60_000 })).toBeUndefined();
    const second = await runRetention(db, settings(), { actor: "b" });
    expect(second).toMatchObject({ actor: "b", status: "succeeded" });
    // A running row whose heartbeat stopped belongs to a dead process: closed as failed, and not in the way.
    await startRetentionRun(db, "c", settings());
    await db.execute(sql`update retention_run set heartbeat_at = now() - interval '1 hour' where actor = 'c'`);
    expect(await runRetention(db, settings(), { actor: "d" })).toMatchObject({ status: "succeeded" });
    const runs = await listRetentionRuns(db, support, 10);
    expect(runs.map((r) => [r.actor, r.status])).toEqual([
      ["d", "succeeded"],
      ["c", "failed"],
      ["b", "succeeded"],
      ["a", "succeeded"],
    ]);
  });

  it("[retention] a snapshot taken before the tombstones holds the delete back; a claim in it still sees the event and is a duplicate", async () => {
    const [body] = await settledHistory(1);
    await age(db, 100);
    const old = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      let snapshotTaken!: () => void;
      const taken = new Promise<void>((r) => (snapshotTaken = r));
      let claimedInOld: unknown;
      const txn = old.begin("isolation level repeatable read", async (tx) => {
        await tx`select 1 from webhook_event limit 1`; // the snapshot is taken here, before any tombstone
        snapshotTaken();
        await held;
        // The claim statement as the old snapshot runs it: the event row is alive there, so it conflicts.
        const [row] = await tx<{ n: number }[]>`
          select count(*)::int as n from webhook_event where source = 'stripe' and event_id = 'evt_1'`;
        claimedInOld = row?.n;
      });
      await taken;
      await expect(pruneSettledEvents(db, settings({ snapshotWaitMs: 300 }))).rejects.toThrow(SnapshotWaitError);
      expect(await tableCounts(db)).toMatchObject({ events: 1, tombstones: 1 });
      // Meanwhile a new claim (a fresh snapshot) already sees the tombstone: a duplicate.
      const retry = await claimOne(db, {
        source: "stripe",
        eventId: "evt_1",
        eventType: "customer.subscription.updated",
        rawBody: body!,
        headers: {},
      });
      expect(retry.claimed).toBe(false);
      release();
      await txn;
      expect(claimedInOld).toBe(1);
      const done = await pruneSettledEvents(db, settings());
      expect(done.events).toBe(1);
      expect(await tableCounts(db)).toMatchObject({ events: 0, tombstones: 1 });
    } finally {
      release(); // a failed expectation must not leave the old transaction open, or end() waits for it
      await old.end();
    }
  });

  it("[retention] claims racing a prune of the same ids never claim a pruned event again", async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `evt_${i + 1}`);
    const bodies = new Map<string, string>();
    for (const id of ids) bodies.set(id, (await deliverStripe(db, id)).body);
    await drain(db, testSettings());
    await age(db, 100);
    let pruning = true;
    let roundsDuring = 0;
    const claims: boolean[] = [];
    const claimAll = () =>
      Promise.all(
        ids.map((id) =>
          claimOne(db, {
            source: "stripe",
            eventId: id,
            eventType: "customer.subscription.updated",
            rawBody: bodies.get(id)!,
            headers: {},
          }).then((r) => claims.push(r.claimed)),
        ),
      );
    const racer = (async () => {
      while (pruning) {
        await claimAll();
        roundsDuring++;
      }
      await claimAll();
    })();
    const done = await pruneSettledEvents(db, settings({ batchSize: 2, pauseMs: 5 })).finally(() => {
      pruning = false;
    });
    await racer;
    expect(done.events).toBe(40);
    expect(roundsDuring).toBeGreaterThan(2);
    expect(claims.filter(Boolean)).toEqual([]);
    expect(await tableCounts(db)).toMatchObject({ events: 0, tombstones: 40 });
  });
});
