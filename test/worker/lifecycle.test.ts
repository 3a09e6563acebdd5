import { sql } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { handlerLookup } from "@/lib/handlers/registry";
import { defineDeltaHandler } from "@/lib/handlers/types";
import { backoffSql, leaseDue, reapExpiredLeases } from "@/lib/ledger/lease";
import { processLeased } from "@/lib/ledger/process";
import { processEventNow, requeueEvent } from "@/lib/console/requeue";
import { ConflictError, NotFoundError } from "@/lib/errors";
import type { Actor } from "@/lib/roles";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { claim, drain, query, testSettings } from "./helpers";

const { db } = setupTestDb();
const OPS: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };

/** invoice.paid, except for events whose id starts with evt_poison: those always throw. */
const poisonous = handlerLookup([
  defineDeltaHandler<string>({
    source: "stripe",
    types: ["invoice.paid"],
    read: ({ eventId }) => ({ entity: { type: "customer", id: "cus_x" }, input: eventId }),
    async apply(tx, eventId) {
      if (eventId.startsWith("evt_poison")) throw new Error("downstream said no");
      await tx.execute(
        sql`insert into customer_total (source, customer_id, currency, amount_paid, invoice_count) values ('stripe', ${eventId}, 'usd', 1, 1)`,
      );
      return {};
    },
  }),
]);

const paid = (eventId: string, customerId = "cus_Lifecycle001", amount = 100) =>
  stripeInvoicePaidEvent({ eventId, customerId, amount });

describe("failure, retries and dead", () => {
  it("[worker] a poison event ends dead after WORKER_MAX_ATTEMPTS failed attempts while the others in its batch settle", async () => {
    for (const id of ["evt_ok1", "evt_poison", "evt_ok2"]) await claim(db, "stripe", paid(id));
    const settings = testSettings({ policy: { maxAttempts: 4, backoffBaseMs: 1, backoffMaxMs: 2 } });
    await drain(db, settings, { handlers: poisonous });
    const events = await query<{ event_id: string; status: string; attempts: number; last_error: string | null }>(
      db,
      sql`select event_id, status, attempts, last_error from webhook_event order by event_id`,
    );
    expect(events).toEqual([
      { event_id: "evt_ok1", status: "settled", attempts: 1, last_error: null },
      { event_id: "evt_ok2", status: "settled", attempts: 1, last_error: null },
      { event_id: "evt_poison", status: "dead", attempts: 4, last_error: "downstream said no" },
    ]);
    const attempts = await query<{ number: number; outcome: string; error: string | null }>(
      db,
      sql`select number, outcome, error from webhook_attempt where event_id = 'evt_poison' order by number`,
    );
    expect(attempts).toEqual(
      [1, 2, 3, 4].map((number) => ({ number, outcome: "failed", error: "downstream said no" })),
    );
    expect(await query(db, sql`select customer_id from customer_total order by 1`)).toEqual([
      { customer_id: "evt_ok1" },
      { customer_id: "evt_ok2" },
    ]);
  });

  it("[worker] a failure schedules the retry with full-jitter backoff within base · 2^(n−1), capped", async () => {
    await claim(db, "stripe", paid("evt_poison_backoff"));
    const policy = { maxAttempts: 10, backoffBaseMs: 10_000, backoffMaxMs: 15_000 };
    const ctx = { policy, handlers: poisonous };
    const delays: number[] = [];
    for (let n = 1; n <= 3; n++) {
      await db.execute(sql`update webhook_event_state set next_attempt_at = now()`);
      const leased = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 });
      await processLeased(db, leased, ctx);
      const [row] = await query<{ ms: number }>(
        db,
        sql`select extract(epoch from next_attempt_at - now()) * 1000 as ms from webhook_event`,
      );
      delays.push(Number(row?.ms));
    }
    expect(delays[0]).toBeGreaterThanOrEqual(-50);
    expect(delays[0]).toBeLessThanOrEqual(10_000);
    expect(delays[1]).toBeGreaterThanOrEqual(-50);
    expect(delays[1]).toBeLessThanOrEqual(15_000); // 20 s capped at 15 s
    expect(delays[2]).toBeGreaterThanOrEqual(-50);
    expect(delays[2]).toBeLessThanOrEqual(15_000);
    // One draw per attempt cannot show the cap or the jitter: 400 draws of the same schedule can.
    // Uncapped, attempt 3's range is [0, 40 s]; without jitter every draw would be the same.
    const [spread] = await query<{ lo: number; hi: number }>(
      db,
      sql`select min(ms)::float8 as lo, max(ms)::float8 as hi from (
            select extract(epoch from ${backoffSql(policy)} - now()) * 1000 as ms
            from (select 3 as attempts, 0 as attempts_base from generate_series(1, 400)) e) d`,
    );
    expect(spread!.hi).toBeLessThanOrEqual(15_000);
    expect(spread!.hi).toBeGreaterThan(13_500);
    expect(spread!.lo).toBeGreaterThanOrEqual(0);
    expect(spread!.lo).toBeLessThan(1_500);
  });

  it("[worker] the lease is committed before the handler runs, so another connection sees processing and the attempt counted", async () => {
    await claim(db, "stripe", paid("evt_visible"));
    const other = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
    const seen: unknown[] = [];
    // The handler runs inside the worker's transaction; what another connection sees then is what a crash would leave.
    const observing = handlerLookup([
      defineDeltaHandler<string>({
        source: "stripe",
        types: ["invoice.paid"],
        read: ({ eventId }) => ({ entity: { type: "customer", id: "cus_x" }, input: eventId }),
        async apply() {
          seen.push(...(await other`select status, attempts, leased_by from webhook_event`));
          return {};
        },
      }),
    ]);
    try {
      const leased = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 1 });
      expect(leased.map((e) => e.attempt)).toEqual([1]);
      expect(await processLeased(db, leased, { policy: testSettings().policy, handlers: observing })).toMatchObject([
        { outcome: "settled" },
      ]);
      expect(seen).toEqual([{ status: "processing", attempts: 1, leased_by: "w" }]);
    } finally {
      await other.end();
    }
  });
});

describe("leases and fencing", () => {
  it("[worker] a batch is handed over oldest due first, whatever order the rows are stored or keyed in", async () => {
    // Keys and due times in opposite orders: the plan reads rows by key (or by where they lie), but the version
    // guard weighs a batch in the order it is handed over, so an older state must come first.
    const ids = Array.from({ length: 12 }, (_, i) => `evt_order_${String(i).padStart(2, "0")}`);
    for (const id of ids) await claim(db, "stripe", paid(id));
    await db.execute(sql`update webhook_event_state
      set next_attempt_at = now() - (100 + substr(event_id, 11)::int) * interval '1 second'`);
    const reversed = [...ids].reverse();
    const batch = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 50 });
    expect(batch.map((e) => e.eventId)).toEqual(reversed);
    await db.execute(
      sql`update webhook_event_state set status = 'claimed', lease_token = null, lease_expires_at = null`,
    );
    const live = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 50, liveWithinMs: 3_600_000 });
    expect(live.map((e) => e.eventId)).toEqual(reversed);
  });

  it("[worker] a worker whose lease expired cannot settle; the takeover's result stands", async () => {
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_fence", created: 100, status: "active" }));
    const [stalled] = await leaseDue(db, { workerId: "stalled", leaseMs: 1, limit: 1 });
    await new Promise((r) => setTimeout(r, 20));
    expect(await reapExpiredLeases(db, testSettings().policy)).toEqual([{ source: "stripe", eventId: "evt_fence" }]);
    const [takeover] = await leaseDue(db, { workerId: "takeover", leaseMs: 30_000, limit: 1 });
    expect(takeover?.attempt).toBe(2);
    const ctx = { policy: testSettings().policy, handlers: handlerLookup() };
    expect((await processLeased(db, [takeover!], ctx)).map((r) => r.outcome)).toEqual(["settled"]);
    // The stalled worker wakes up and tries to finish its attempt.
    expect((await processLeased(db, [stalled!], ctx)).map((r) => r.outcome)).toEqual(["lease-lost"]);
    expect(await query(db, sql`select number, actor, outcome, error from webhook_attempt order by number`)).toEqual([
      {
        number: 1,
        actor: "stalled",
        outcome: "failed",
        error: "lease expired: the worker stopped or stalled before settling",
      },
      { number: 2, actor: "takeover", outcome: "settled", error: null },
    ]);
    expect(await query(db, sql`select count(*)::int as n from entity_transition`)).toEqual([{ n: 1 }]);
  });

  it("[worker] a lease that expired and was reaped cannot settle even before anyone takes it over", async () => {
    await claim(db, "stripe", paid("evt_reaped"));
    const [stalled] = await leaseDue(db, { workerId: "stalled", leaseMs: 1, limit: 1 });
    await new Promise((r) => setTimeout(r, 20));
    await reapExpiredLeases(db, testSettings().policy);
    const results = await processLeased(db, [stalled!], { policy: testSettings().policy, handlers: handlerLookup() });
    expect(results.map((r) => r.outcome)).toEqual(["lease-lost"]);
    expect(await query(db, sql`select status from webhook_event`)).toEqual([{ status: "failed" }]);
    expect(await query(db, sql`select 1 from customer_total`)).toHaveLength(0);
  });

  it("[worker] a batch with one lost lease writes nothing of that event and settles the rest", async () => {
    // Three invoices of three customers, leased together; one lease expires and is taken back mid-batch.
    for (const [id, cus] of [
      ["evt_b1", "cus_B1"],
      ["evt_b2", "cus_B2"],
      ["evt_b3", "cus_B3"],
    ] as const)
      await claim(db, "stripe", paid(id, cus));
    const batch = await leaseDue(db, { workerId: "slow", leaseMs: 30_000, limit: 3 });
    expect(batch).toHaveLength(3);
    await db.execute(sql`update webhook_event_state set lease_expires_at = now() - interval '1 second'
                         where event_id = 'evt_b2'`);
    expect(await reapExpiredLeases(db, testSettings().policy)).toEqual([{ source: "stripe", eventId: "evt_b2" }]);

    const ctx = { policy: testSettings().policy, handlers: handlerLookup() };
    const results = await processLeased(db, batch, ctx);
    expect(Object.fromEntries(results.map((r) => [r.eventId, r.outcome]))).toEqual({
      evt_b1: "settled",
      evt_b2: "lease-lost",
      evt_b3: "settled",
    });
    // The fence left evt_b2 out of the batch: only the reaper's failed attempt is left.
    expect(await query(db, sql`select customer_id from customer_total order by 1`)).toEqual([
      { customer_id: "cus_B1" },
      { customer_id: "cus_B3" },
    ]);
    expect(
      await query(db, sql`select event_id, status from webhook_event where event_id like 'evt_b%' order by 1`),
    ).toEqual([
      { event_id: "evt_b1", status: "settled" },
      { event_id: "evt_b2", status: "failed" },
      { event_id: "evt_b3", status: "settled" },
    ]);
    expect(await query(db, sql`select event_id, outcome from webhook_attempt order by event_id, number`)).toEqual([
      { event_id: "evt_b1", outcome: "settled" },
      { event_id: "evt_b2", outcome: "failed" },
      { event_id: "evt_b3", outcome: "settled" },
    ]);
    expect(await query(db, sql`select event_id from entity_transition order by 1`)).toEqual([
      { event_id: "evt_b1" },
      { event_id: "evt_b3" },
    ]);
  });

  it("[worker] an event that keeps killing its worker ends dead through expired leases alone", async () => {
    await claim(db, "stripe", paid("evt_killer"));
    const policy = { maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 };
    for (let i = 0; i < 3; i++) {
      await db.execute(sql`update webhook_event_state set next_attempt_at = now() where status = 'failed'`);
      expect(await leaseDue(db, { workerId: `doomed-${i}`, leaseMs: 1, limit: 1 })).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 10));
      await reapExpiredLeases(db, policy);
    }
    expect(await query(db, sql`select status, attempts from webhook_event`)).toEqual([{ status: "dead", attempts: 3 }]);
    expect(await query(db, sql`select count(*)::int as n from webhook_attempt where outcome = 'failed'`)).toEqual([
      { n: 3 },
    ]);
  });
});

describe("requeue and process now", () => {
  it("[worker] requeue moves a dead event back to claimed with a fresh budget; the next attempt is recorded as a requeue by its actor", async () => {
    await claim(db, "stripe", paid("evt_poison_requeue"));
    const settings = testSettings({ policy: { maxAttempts: 2, backoffBaseMs: 1, backoffMaxMs: 1 } });
    await drain(db, settings, { handlers: poisonous });
    expect(await query(db, sql`select status from webhook_event`)).toEqual([{ status: "dead" }]);
    expect(await requeueEvent({ db, actor: OPS, input: { source: "stripe", eventId: "evt_poison_requeue" } })).toEqual({
      status: "claimed",
    });
    // A fresh budget: none of its attempts count against WORKER_MAX_ATTEMPTS any more.
    expect(await query(db, sql`select status, (attempts - attempts_base)::int as used from webhook_event`)).toEqual([
      { status: "claimed", used: 0 },
    ]);
    await drain(db, settings); // the built-in handler: the "bug" is fixed
    const attempts = await query<{ number: number; trigger: string; actor: string; outcome: string }>(
      db,
      sql`select number, trigger, actor, outcome from webhook_attempt order by number`,
    );
    expect(attempts.map((a) => [a.number, a.trigger, a.outcome])).toEqual([
      [1, "auto", "failed"],
      [2, "auto", "failed"],
      [3, "requeue", "settled"],
    ]);
    expect(attempts[2]?.actor).toBe("ops@example.com");
  });

  it("[worker] requeue refuses a settled event and names its status; an unknown event is not found", async () => {
    await claim(db, "stripe", paid("evt_done"));
    await drain(db);
    await expect(requeueEvent({ db, actor: OPS, input: { source: "stripe", eventId: "evt_done" } })).rejects.toThrow(
      ConflictError,
    );
    await expect(requeueEvent({ db, actor: OPS, input: { source: "stripe", eventId: "evt_done" } })).rejects.toThrow(
      "event evt_done is settled; only failed or dead events can be requeued",
    );
    await expect(requeueEvent({ db, actor: OPS, input: { source: "stripe", eventId: "evt_nope" } })).rejects.toThrow(
      NotFoundError,
    );
  });

  it("[worker] process now runs a failed event at once, ignoring its backoff, recorded as process-now", async () => {
    await claim(db, "stripe", paid("evt_later"));
    await db.execute(
      sql`update webhook_event_state set status = 'failed', attempts = 1, next_attempt_at = now() + interval '1 hour'`,
    );
    const ctx = { policy: testSettings().policy, handlers: handlerLookup(), workerId: "console", leaseMs: 30_000 };
    const result = await processEventNow({ db, actor: OPS, input: { source: "stripe", eventId: "evt_later" }, ctx });
    expect(result.outcome).toBe("settled");
    expect(await query(db, sql`select number, trigger, actor, outcome from webhook_attempt`)).toEqual([
      { number: 2, trigger: "process-now", actor: "ops@example.com", outcome: "settled" },
    ]);
    await expect(
      processEventNow({ db, actor: OPS, input: { source: "stripe", eventId: "evt_later" }, ctx }),
    ).rejects.toThrow(/is settled/);
  });

  it("[worker] a replayed event's attempt is recorded with trigger replay", async () => {
    const { claimOne } = await import("@/test/claim");
    await claimOne(db, {
      source: "stripe",
      eventId: "evt_rp",
      eventType: "invoice.paid",
      rawBody: JSON.stringify(paid("evt_rp")),
      headers: {},
      via: "replay",
    });
    await drain(db);
    expect(await query(db, sql`select trigger, actor, outcome from webhook_attempt`)).toEqual([
      { trigger: "replay", actor: "replay", outcome: "settled" },
    ]);
  });
});
