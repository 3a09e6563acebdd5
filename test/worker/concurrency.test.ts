import { sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { connectPostgres } from "@/db/client";
import { createWorker } from "@/lib/worker/run";
import { coalesce, WAKE_CHANNEL } from "@/lib/worker/wake";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { claim, heldHandlers, query, testSettings, waitFor } from "./helpers";

const handle = setupTestDb({ max: 12 });
const { db } = handle;

const allSettled = async () =>
  (await query<{ n: number }>(db, sql`select count(*)::int as n from webhook_event where status <> 'settled'`))[0]
    ?.n === 0;

describe("several workers at once", () => {
  it("[worker] two workers woken by every claim never double-apply", async () => {
    const customers = Array.from({ length: 20 }, (_, i) => `cus_Conc${String(i).padStart(6, "0")}`);
    const expected = new Map<string, number>();
    const w1 = createWorker({
      getDb: async () => db,
      settings: testSettings({ workerId: "w1", concurrency: 2, batchSize: 7 }),
    });
    const w2 = createWorker({
      getDb: async () => db,
      settings: testSettings({ workerId: "w2", concurrency: 2, batchSize: 5 }),
    });
    w1.start();
    w2.start();
    try {
      for (let i = 0; i < 400; i++) {
        const customerId = customers[i % customers.length]!;
        const eventId = `evt_conc_${i}`;
        expected.set(customerId, (expected.get(customerId) ?? 0) + 100 + i);
        await claim(db, "stripe", stripeInvoicePaidEvent({ eventId, customerId, amount: 100 + i }));
        // Redeliveries race the first delivery; only the claim decides.
        if (i % 7 === 0) await claim(db, "stripe", stripeInvoicePaidEvent({ eventId, customerId, amount: 100 + i }));
        w1.wake();
        w2.wake();
      }
      await waitFor(allSettled, 30_000);
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
    }
    const totals = await query<{ customer_id: string; amount_paid: string }>(
      db,
      sql`select customer_id, amount_paid::text from customer_total`,
    );
    expect(Object.fromEntries(totals.map((t) => [t.customer_id, Number(t.amount_paid)]))).toEqual(
      Object.fromEntries(expected),
    );
    const attempts = await query<{ n: number; events: number }>(
      db,
      sql`select count(*)::int as n, count(distinct event_id)::int as events from webhook_attempt where outcome = 'settled'`,
    );
    expect(attempts).toEqual([{ n: 400, events: 400 }]);
    const actors = await query<{ actor: string }>(db, sql`select distinct actor from webhook_attempt order by actor`);
    expect(actors.map((a) => a.actor)).toEqual(["w1", "w2"]);
  });

  it("[worker] concurrent versions of one entity from many workers still end at the newest", async () => {
    const workers = [1, 2, 3].map((n) =>
      createWorker({
        getDb: async () => db,
        settings: testSettings({ workerId: `w${n}`, concurrency: 2, batchSize: 3 }),
      }),
    );
    for (let v = 1; v <= 60; v++)
      await claim(
        db,
        "stripe",
        stripeSubscriptionEvent({
          eventId: `evt_cv${v}`,
          created: 1000 + ((v * 37) % 60),
          status: v === 23 ? "canceled" : "active",
        }),
      );
    for (const w of workers) w.start();
    try {
      await waitFor(allSettled, 30_000);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    // (23 * 37) % 60 = 11 … the newest version is 1000 + 59, reached by v with v*37 ≡ 59 (mod 60): v = 47.
    expect(await query(db, sql`select version::text, updated_by_event from subscription`)).toEqual([
      { version: "1059", updated_by_event: "evt_cv47" },
    ]);
  });
});

describe("wake-ups", () => {
  it("[worker] an idle worker on a 60 s poll picks up a new event as soon as a NOTIFY arrives", async () => {
    const listener = connectPostgres(testDatabaseUrl(), { max: 2 });
    let listening!: () => void;
    const listenUp = new Promise<void>((r) => (listening = r));
    const worker = createWorker({
      getDb: async () => db,
      settings: testSettings({ pollMs: 60_000 }),
      listen: async (onWake) => {
        const unlisten = await listener.listen!(WAKE_CHANNEL, onWake);
        listening();
        return unlisten;
      },
    });
    worker.start();
    try {
      await listenUp; // LISTEN is up; with a 60 s poll only the NOTIFY can bring the event in time
      await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_wake" }));
      await handle.notify!(WAKE_CHANNEL);
      await waitFor(allSettled, 5_000);
    } finally {
      await worker.stop();
      await listener.close();
    }
  });

  it("[worker] coalesced wake-ups: a burst of 100 calls fires once at once and once at the end of the window", async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const wake = coalesce(async () => void calls++, 50);
      for (let i = 0; i < 100; i++) wake();
      expect(calls).toBe(1);
      vi.advanceTimersByTime(49);
      expect(calls).toBe(1); // not before the window ends
      vi.advanceTimersByTime(1);
      expect(calls).toBe(2); // the trailing call, exactly at the end of the window
      vi.advanceTimersByTime(1_000);
      expect(calls).toBe(2); // and only one: the burst left nothing else behind
      wake();
      expect(calls).toBe(3); // a quiet window later, the next call fires at once again
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("graceful stop", () => {
  it("[worker] stop() stops leasing but lets the in-flight batch finish and settle", async () => {
    const { handlers: slow, held: started, release } = heldHandlers();
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_inflight" }));
    const worker = createWorker({ getDb: async () => db, settings: testSettings({ handlers: slow, batchSize: 1 }) });
    worker.start();
    await waitFor(async () => started() === 1, 5_000);
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_after_stop" }));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false); // still finishing
    release();
    await stopping;
    expect(await query(db, sql`select event_id, status from webhook_event order by event_id`)).toEqual([
      { event_id: "evt_after_stop", status: "claimed" },
      { event_id: "evt_inflight", status: "settled" },
    ]);
  });
});
