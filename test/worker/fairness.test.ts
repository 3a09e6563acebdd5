import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { claimEvents } from "@/lib/intake/claim";
import { describeDelivery } from "@/lib/intake/describe";
import { createWorker } from "@/lib/worker/run";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, heldHandlers, query, testSettings, waitFor } from "./helpers";

const handle = setupTestDb();
const { db } = handle;

async function claimBacklog(n: number): Promise<void> {
  const claims = Array.from({ length: n }, (_, i) => {
    const payload = stripeInvoicePaidEvent({ eventId: `evt_backlog_${i}`, customerId: `cus_Back${i % 50}`, amount: 1 });
    const described = describeDelivery({
      source: { slug: "stripe", provider: "stripe" },
      payload,
      rawBody: JSON.stringify(payload),
      headers: new Headers(),
      via: "provider",
    });
    if (!described.ok) throw new Error(described.reason);
    return described.claim;
  });
  for (let i = 0; i < n; i += 500) await claimEvents(db, claims.slice(i, i + 500));
  // An hour-old backlog (a worker outage, a replay), oldest first in claim order.
  await db.execute(sql`
    update webhook_event_state set next_attempt_at = now() - interval '1 hour'
      + (substring(event_id from 'evt_backlog_(\\d+)'))::int * interval '1 millisecond'`);
}

describe("a live delivery beside a backlog", () => {
  it("[worker] is settled within a batch or two, not after the whole backlog, while the oldest still go first", async () => {
    const backlog = 2_000;
    await claimBacklog(backlog);
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_live", customerId: "cus_Live", amount: 5 }));
    const worker = createWorker({ getDb: async () => db, settings: testSettings({ concurrency: 1, batchSize: 50 }) });
    worker.start();
    try {
      await waitFor(async () => {
        const [row] = await query<{ n: number }>(
          db,
          sql`select count(*)::int as n from webhook_event where status <> 'settled'`,
        );
        return row?.n === 0;
      }, 60_000);
    } finally {
      await worker.stop();
    }
    const [order] = await query<{ before_live: number; oldest_first_batch: boolean; out_of_order: number }>(
      db,
      sql`select
            (select count(*)::int from webhook_event b, webhook_event l
              where l.event_id = 'evt_live' and b.event_id like 'evt_backlog_%' and b.settled_at < l.settled_at)
              as before_live,
            (select a.number = 1 and a.started_at = (select min(started_at) from webhook_attempt)
               from webhook_attempt a where a.event_id = 'evt_backlog_0') as oldest_first_batch,
            (select count(*)::int from (
               select started_at < lag(started_at) over (order by substring(event_id from 'evt_backlog_(\\d+)')::int) as back
               from webhook_attempt where event_id like 'evt_backlog_%') s where back) as out_of_order`,
    );
    // One loop, batches of 50: the first batch takes the 50 oldest, the second the live lane (the live event)
    // topped up with the next oldest; the backlog itself is leased strictly oldest first.
    expect(order?.before_live).toBeLessThan(100);
    expect(order?.oldest_first_batch).toBe(true);
    expect(order?.out_of_order).toBe(0);
  });
});

describe("wake-ups", () => {
  it("[worker] a wake-up while every loop is busy is not lost: the loop leases again when it settles", async () => {
    const { handlers, held, release } = heldHandlers("evt_busy");
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_busy" }));
    // One loop, and no poll to fall back on within the test: only the wake-up can bring the loop round.
    const worker = createWorker({
      getDb: async () => db,
      settings: testSettings({ handlers, concurrency: 1, pollMs: 60_000 }),
    });
    worker.start();
    try {
      await waitFor(async () => held() === 1);
      await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_notified" }));
      worker.wake(); // a NOTIFY from another process's claim, while the only loop is busy
      release();
      await waitFor(async () => (await statusOf("evt_notified")) === "settled", 10_000);
    } finally {
      release();
      await worker.stop();
    }
  });
});

describe("claims made while a loop is busy", () => {
  it("[worker] are leased together when it settles: one lease, one transaction, each event one attempt", async () => {
    const { handlers, held, release } = heldHandlers("evt_first");
    const worker = createWorker({
      getDb: async () => db,
      settings: testSettings({ handlers, concurrency: 1, batchSize: 50, pollMs: 60_000 }),
    });
    worker.start();
    try {
      await new Promise((r) => setTimeout(r, 100)); // the loop found nothing and sleeps until woken
      await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_first" }));
      worker.wake();
      await waitFor(async () => held() === 1);
      const ids = Array.from({ length: 20 }, (_, i) => `evt_grouped_${i}`);
      for (const id of ids) {
        await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: id }));
        worker.wake();
      }
      release();
      await waitFor(async () => (await statusOf("evt_grouped_19")) === "settled", 10_000);
    } finally {
      release();
      await worker.stop();
    }
    // One lease statement took all twenty (one now(), so one started_at), and each has exactly one attempt.
    const [group] = await query<{ leases: number; attempts: number; settled: number }>(
      db,
      sql`select count(distinct a.started_at)::int as leases, count(*)::int as attempts,
            count(*) filter (where e.status = 'settled')::int as settled
          from webhook_attempt a join webhook_event e using (source, event_id) where a.event_id like 'evt_grouped_%'`,
    );
    expect(group).toEqual({ leases: 1, attempts: 20, settled: 20 });
  });
});

async function statusOf(eventId: string): Promise<string | undefined> {
  const [row] = await query<{ status: string }>(db, sql`select status from webhook_event where event_id = ${eventId}`);
  return row?.status;
}
