import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClaimBatcher } from "@/lib/intake/batcher";
import { parseClaim } from "@/lib/intake/claim";
import { HOLD_MS, intakeStrained, noteClaimTime, resetIntakeStrain, STRAIN_MS } from "@/lib/metrics/intake-strain";
import { createLedgerMetrics } from "@/lib/metrics/registry";
import { createWorker } from "@/lib/worker/run";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { claim, query, testSettings, waitFor } from "./helpers";

const { db } = setupTestDb();
// The strain is process-wide: claims in files that ran before this one in the same worker may have noted some.
beforeEach(() => resetIntakeStrain());
afterEach(() => resetIntakeStrain());

const allSettled = async () =>
  (await query<{ n: number }>(db, sql`select count(*)::int as n from webhook_event where status <> 'settled'`))[0]
    ?.n === 0;

/** Claims `n` invoice events, drains them with one loop of batches of 5, and counts the loop's yields. */
async function drainCountingYields(tag: string, n: number, strained: () => boolean): Promise<number> {
  for (let i = 0; i < n; i++)
    await claim(
      db,
      "stripe",
      stripeInvoicePaidEvent({ eventId: `evt_y${tag}_${i}`, customerId: `cus_Y${tag}`, amount: 1 }),
    );
  const metrics = createLedgerMetrics();
  const worker = createWorker({
    getDb: async () => db,
    settings: testSettings({ workerId: `w-${tag}`, batchSize: 5 }),
    metrics,
    log: () => {},
    intakeStrained: strained,
  });
  worker.start();
  try {
    await waitFor(allSettled, 20_000);
  } finally {
    await worker.stop();
  }
  return (await metrics.workerYields.get()).values[0]?.value ?? 0;
}

describe("a backlog's drain yields to the intake", () => {
  it("[worker] a claim statement slower than STRAIN_MS, or a timed-out claim, marks the intake strained for HOLD_MS", () => {
    noteClaimTime(STRAIN_MS - 1, 1_000);
    expect(intakeStrained(1_001)).toBe(false);
    noteClaimTime(STRAIN_MS, 1_000);
    expect(intakeStrained(1_001)).toBe(true);
    expect(intakeStrained(1_000 + HOLD_MS - 1)).toBe(true);
    expect(intakeStrained(1_000 + HOLD_MS)).toBe(false);
  });

  it("[worker] while the intake is strained, each full batch of a backlog is followed by a pause; otherwise none", async () => {
    // 30 events in batches of 5: six full batches, each followed by a pause while strained.
    expect(await drainCountingYields("s", 30, () => true)).toBeGreaterThanOrEqual(5);
    expect(await drainCountingYields("f", 30, () => false)).toBe(0);
    // Every event settled once either way.
    const [attempts] = await query<{ n: number; events: number }>(
      db,
      sql`select count(*)::int as n, count(distinct event_id)::int as events from webhook_attempt`,
    );
    expect(attempts).toEqual({ n: 60, events: 60 });
  });

  it("[worker] a claim held up by a row lock strains the intake once its statement ends", async () => {
    const url = testDatabaseUrl();
    const other = postgres(url, { max: 1, onnotice: () => {} });
    const batcher = new ClaimBatcher(db, { stallMs: 60_000 });
    const held = parseClaim({
      source: "stripe",
      eventId: "evt_held",
      eventType: "invoice.paid",
      rawBody: JSON.stringify({ id: "evt_held", type: "invoice.paid" }),
      headers: {},
    });
    try {
      expect(intakeStrained()).toBe(false);
      // Another transaction inserts the same event and holds it uncommitted: the claim waits on its key.
      // Held until the claim is seen waiting on it, then STRAIN_MS × 3 more: on a loaded machine a fixed hold could end
      // before the claim's statement even reached PostgreSQL.
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let inserted = false;
      const reserved = other.begin(async (tx) => {
        await tx`insert into webhook_event_state (source, event_id, event_type, status, received_at)
                 values ('stripe', 'evt_held', 'invoice.paid', 'claimed', now())`;
        inserted = true;
        await gate;
        throw new Error("roll back");
      });
      while (!inserted) await new Promise((r) => setTimeout(r, 10));
      const claimed = batcher.claim(held);
      for (let waited = false; !waited;) {
        const [row] = await query<{ n: number }>(
          db,
          sql`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`,
        );
        waited = (row?.n ?? 0) > 0;
        if (!waited) await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, STRAIN_MS * 3));
      release();
      await reserved.catch(() => {});
      expect((await claimed).claimed).toBe(true);
      expect(intakeStrained()).toBe(true);
    } finally {
      await other.end();
    }
  });
});
