import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { driveReplayRun } from "@/lib/replay/drive";
import { reopenReplayRun } from "@/lib/replay/runs";
import { setupTestDb } from "../db";
import { drain, query } from "../worker/helpers";
import { startFakeApi, stripeRoute, type FakeApi, type StripeEvent } from "./fake-api";
import { apiConfig, replay, seedLedger, SINCE, STRIPE_KEY, storyEvents, testHost, UNTIL } from "./helpers";

const { db } = setupTestDb();
let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function stripeWith(events: readonly StripeEvent[]) {
  api = await startFakeApi(stripeRoute(events, STRIPE_KEY));
  return api;
}

/** Every `every`-th event is missing from the ledger; the rest were delivered and settled. */
async function partlyDelivered(events: ReturnType<typeof storyEvents>, every: number) {
  const missing = events.filter((_, i) => i % every === 0);
  await seedLedger(
    db,
    "stripe",
    events.filter((_, i) => i % every !== 0),
  );
  return missing.map((e) => e.id);
}

const ledgerIds = async () =>
  (
    await query<{ event_id: string }>(
      db,
      sql`select event_id from webhook_event where source = 'stripe' order by event_id`,
    )
  ).map((r) => r.event_id);

describe("replay from Stripe's events API", () => {
  it("[replay] seed's story: 4,812 fetched, 4,790 duplicate, 22 new; the worker replays just those 22", async () => {
    const events = storyEvents(4812);
    const outside = [
      ...storyEvents(20, "evt_before").map((e) => ({ ...e, created: e.created - 3600 })),
      ...storyEvents(20, "evt_after").map((e) => ({ ...e, created: e.created + 7200 })),
    ];
    const missingIdx = new Set(Array.from({ length: 22 }, (_, k) => Math.floor((k * 4812) / 22) + 3));
    const missing = events.filter((_, i) => missingIdx.has(i)).map((e) => e.id);
    await seedLedger(
      db,
      "stripe",
      events.filter((_, i) => !missingIdx.has(i)),
    );
    const fake = await stripeWith([...events, ...outside]);

    const run = await replay(testHost(db, apiConfig({ stripe: fake.url })), {
      source: "stripe",
      since: SINCE,
      until: UNTIL,
    });
    expect(run).toMatchObject({
      status: "succeeded",
      fetched: 4812,
      duplicates: 4790,
      new: 22,
      failed: 0,
      pages: 49,
      lastError: null,
    });

    const [first, second] = fake.requests;
    expect(fake.requests).toHaveLength(49);
    expect(first?.headers.authorization).toBe(`Bearer ${STRIPE_KEY}`);
    expect(Object.fromEntries(first!.query)).toEqual({
      "created[gte]": String(Date.parse(SINCE) / 1000),
      "created[lte]": String(Date.parse(UNTIL) / 1000),
      limit: "100",
    });
    expect(second?.query.get("starting_after")).toBe(events[4812 - 100]!.id); // newest first: page 1 ends at the 100th newest

    const claimed = await query<{ event_id: string; via: string; status: string }>(
      db,
      sql`select event_id, via, status from webhook_event where status <> 'settled' order by event_id`,
    );
    expect(claimed.map((r) => r.event_id)).toEqual([...missing].sort());
    expect(new Set(claimed.map((r) => `${r.via}/${r.status}`))).toEqual(new Set(["replay/claimed"]));

    const processed = await drain(db);
    expect(processed.map((p) => p.eventId).sort()).toEqual([...missing].sort());
    const attempts = await query<{ event_id: string; trigger: string; actor: string; outcome: string }>(
      db,
      sql`select event_id, trigger, actor, outcome from webhook_attempt order by event_id`,
    );
    expect(attempts.map((a) => a.event_id)).toEqual([...missing].sort());
    expect(new Set(attempts.map((a) => `${a.trigger}/${a.outcome}/${a.actor}`))).toEqual(
      new Set([`replay/settled/cli:test (replay ${run.id})`]),
    );
    expect(await query(db, sql`select amount_paid::int as paid, invoice_count::int as n from customer_total`)).toEqual([
      { paid: 22 * 2000, n: 22 },
    ]);
  });

  it("[replay] a 429 with Retry-After and 500s or dropped connections on some pages are retried, and every event is still counted once", async () => {
    const events = storyEvents(250);
    const missing = await partlyDelivered(events, 5);
    const fake = await stripeWith(events);
    fake.fault = (req) =>
      req.n === 2
        ? { status: 429, headers: { "retry-after": "7" }, body: { error: { message: "Too many requests" } } }
        : req.n === 4 || req.n === 5
          ? { status: 500, body: { error: { type: "api_error" } } }
          : req.n === 6
            ? "reset"
            : undefined;
    const host = testHost(db, apiConfig({ stripe: fake.url }));
    const run = await replay(host, { source: "stripe", since: SINCE, until: UNTIL });
    expect(run).toMatchObject({
      status: "succeeded",
      fetched: 250,
      new: missing.length,
      duplicates: 250 - missing.length,
      failed: 0,
      pages: 3,
    });
    expect(host.waits).toEqual([7000, 100, 200, 400]);
    expect(await ledgerIds()).toEqual(events.map((e) => e.id).sort());
  });

  it("[replay] a failing page fails the run with its error and cursor; a resume finishes, counting once", async () => {
    const events = storyEvents(350);
    const missing = await partlyDelivered(events, 7);
    const fake = await stripeWith(events);
    let broken = true;
    const cursorOfPage3 = events[350 - 200]!.id;
    fake.fault = (req) =>
      broken && req.query.get("starting_after") === cursorOfPage3
        ? { status: 503, body: { error: { message: "upstream unavailable" } } }
        : undefined;
    const host = testHost(db, apiConfig({ stripe: fake.url }));

    const failed = await replay(host, { source: "stripe", since: SINCE, until: UNTIL });
    const firstTwoPages = new Set(events.slice(150).map((e) => e.id));
    const newInFirstTwo = missing.filter((id) => firstTwoPages.has(id)).length;
    expect(failed).toMatchObject({
      status: "failed",
      cursor: cursorOfPage3,
      fetched: 200,
      new: newInFirstTwo,
      duplicates: 200 - newInFirstTwo,
      pages: 2,
    });
    expect(failed.lastError).toContain(`fetching the page after ${cursorOfPage3} failed: GET /v1/events?`);
    expect(failed.lastError).toContain("failed after 4 attempts: HTTP 503");
    expect(failed.lastError).toContain(`npm run replay -- --resume ${failed.id}`);
    expect(failed.lastError).not.toContain(STRIPE_KEY);
    expect(failed.finishedAt).not.toBeNull();

    broken = false;
    const ops = { id: "u-ops", email: "ops@example.com", role: "ops" as const };
    const resumed = await driveReplayRun(
      await reopenReplayRun({ db, actor: ops, id: failed.id, lease: host.lease }),
      host,
    );
    expect(resumed).toMatchObject({
      status: "succeeded",
      fetched: 350,
      new: missing.length,
      duplicates: 350 - missing.length,
      failed: 0,
      pages: 4,
      lastError: null,
    });
    expect(await ledgerIds()).toEqual(events.map((e) => e.id).sort());
    expect(await query(db, sql`select count(*)::int as n from webhook_delivery where via = 'replay'`)).toEqual([
      { n: missing.length },
    ]);
    expect(
      await query(db, sql`select actor_email, action, target, result from audit_log where action = 'replay.resume'`),
    ).toEqual([
      { actor_email: "ops@example.com", action: "replay.resume", target: `replay:${failed.id}`, result: "ok" },
    ]);
  });

  it("[replay] a dry run counts what would be new and writes nothing to the ledger", async () => {
    const events = storyEvents(300);
    const missing = await partlyDelivered(events, 10);
    const fake = await stripeWith(events);
    const before = await query(
      db,
      sql`select (select count(*)::int from webhook_event) as events, (select count(*)::int from webhook_delivery) as deliveries`,
    );
    const run = await replay(testHost(db, apiConfig({ stripe: fake.url })), {
      source: "stripe",
      since: SINCE,
      until: UNTIL,
      dryRun: true,
    });
    expect(run).toMatchObject({
      status: "succeeded",
      dryRun: true,
      fetched: 300,
      new: missing.length,
      duplicates: 300 - missing.length,
    });
    // The preview's sample: the first ten would-be-new events as the listing names them.
    expect(run.sample).toHaveLength(10);
    for (const item of run.sample) {
      expect(missing).toContain(item.eventId);
      expect(item).toMatchObject({ type: "invoice.paid", at: expect.stringMatching(/^2026-11-01T10:/) });
    }
    expect(
      await query(
        db,
        sql`select (select count(*)::int from webhook_event) as events, (select count(*)::int from webhook_delivery) as deliveries`,
      ),
    ).toEqual(before);
  });

  it("[replay] two overlapping runs at once end with every event in the ledger exactly once, and their new counts add up to what was missing", async () => {
    const events = storyEvents(600);
    const missing = await partlyDelivered(events, 2);
    const fake = await stripeWith(events);
    const config = apiConfig({ stripe: fake.url });
    const [a, b] = await Promise.all([
      replay(testHost(db, config, { owner: "host-a" }), {
        source: "stripe",
        since: SINCE,
        until: "2026-11-01T10:30:00Z",
      }),
      replay(testHost(db, config, { owner: "host-b" }), {
        source: "stripe",
        since: "2026-11-01T10:10:00Z",
        until: UNTIL,
      }),
    ]);
    expect(a.status).toBe("succeeded");
    expect(b.status).toBe("succeeded");
    expect(a.new + b.new).toBe(missing.length);
    expect(a.new + a.duplicates).toBe(a.fetched);
    expect(b.new + b.duplicates).toBe(b.fetched);
    expect(await ledgerIds()).toEqual(events.map((e) => e.id).sort());
    expect(
      await query(db, sql`select count(*)::int as n from webhook_delivery where via = 'replay' and claimed`),
    ).toEqual([{ n: missing.length }]);
    const processed = await drain(db);
    expect(processed).toHaveLength(missing.length);
    expect(await query(db, sql`select invoice_count::int as n from customer_total`)).toEqual([{ n: missing.length }]);
  });

  it("[replay] an event nested past the receiver's depth limit is counted failed with the reason, and the rest are claimed", async () => {
    const events = storyEvents(5);
    let deep: unknown = "bottom";
    for (let i = 0; i < 100; i++) deep = [deep];
    (events[2] as unknown as { data: { object: Record<string, unknown> } }).data.object.nested = deep;
    const fake = await stripeWith(events);
    const run = await replay(testHost(db, apiConfig({ stripe: fake.url })), {
      source: "stripe",
      since: SINCE,
      until: UNTIL,
    });
    expect(run).toMatchObject({ status: "succeeded", fetched: 5, new: 4, failed: 1 });
    expect(run.lastError).toBe(`skipped ${events[2]!.id}: JSON nested deeper than 64 levels`);
    expect(await ledgerIds()).toEqual(
      events
        .filter((_, i) => i !== 2)
        .map((e) => e.id)
        .sort(),
    );
  });

  it("[replay] a refused API key fails the run at once, with no retries, and the error never shows the key", async () => {
    const fake = await stripeWith(storyEvents(10));
    const config = apiConfig({ stripe: fake.url });
    config.stripe.key = "sk_test_WrongKeyThatMustNotAppear";
    const run = await replay(testHost(db, config), { source: "stripe", since: SINCE, until: UNTIL });
    expect(run.status).toBe("failed");
    expect(fake.requests).toHaveLength(1);
    expect(run.lastError).toContain("refused: HTTP 401");
    expect(run.lastError).not.toContain("sk_test_WrongKeyThatMustNotAppear");
  });

  it("[replay] --type filters are sent as types[] and only those events are fetched", async () => {
    const events = storyEvents(30);
    const subs = events
      .slice(0, 10)
      .map((e) => ({ ...e, id: e.id.replace("story", "sub"), type: "customer.subscription.updated" }));
    const fake = await stripeWith([...events, ...subs]);
    const run = await replay(testHost(db, apiConfig({ stripe: fake.url })), {
      source: "stripe",
      since: SINCE,
      until: UNTIL,
      types: ["invoice.paid"],
    });
    expect(fake.requests[0]?.query.getAll("types[]")).toEqual(["invoice.paid"]);
    expect(run).toMatchObject({ status: "succeeded", fetched: 30, new: 30 });
  });
});
