import { spawn, type ChildProcess } from "node:child_process";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { workerNodeArgs } from "@/bench/worker-procs";
import type { ClaimInput } from "@/lib/intake/claim";
import { claimOne } from "@/test/claim";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { query } from "../worker/helpers";
import { childEnv } from "../tuning";

const { db } = setupTestDb();
// A worker left running by a failed or timed-out test would go on draining later files' events: none is.
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

/** `npm run worker` as a real child process on this run's database. */
function startWorker(extraEnv: Record<string, string> = {}): {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, workerNodeArgs(), {
    env: childEnv({
      ...process.env,
      DATABASE_URL: testDatabaseUrl(),
      WORKER_LEASE_MS: "1500",
      WORKER_BATCH_SIZE: "40",
      WORKER_CONCURRENCY: "2",
      WORKER_POLL_MS: "50",
      WORKER_BACKOFF_BASE_MS: "10",
      WORKER_BACKOFF_MAX_MS: "50",
      WORKER_MAX_ATTEMPTS: "50",
      // "started:" is an info line; under vitest's NODE_ENV=test the logger would default to warn.
      LOG_LEVEL: "info",
      ...extraEnv,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let output = "";
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      output += d.toString();
      if (output.includes("started:")) resolve();
    });
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    child.once("exit", (code) => reject(new Error(`worker exited (${code}) before starting:\n${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, ready, exited };
}

const count = async (where: ReturnType<typeof sql>) =>
  (await query<{ n: number }>(db, sql`select count(*)::int as n from webhook_event where ${where}`))[0]?.n ?? -1;

describe("crash safety", () => {
  it("[crash] a standalone worker SIGKILLed again and again mid-drain still applies every event exactly once", async () => {
    const SUBS = 40;
    const CUSTOMERS = 40;
    const expectedTotals = new Map<string, number>();
    const newest = new Map<string, { version: number; eventId: string }>();
    const rows: ClaimInput[] = [];
    for (let i = 0; i < 4000; i++) {
      if (i % 2 === 0) {
        const customerId = `cus_Crash${String(i % CUSTOMERS).padStart(5, "0")}`;
        const amount = 100 + (i % 977);
        expectedTotals.set(customerId, (expectedTotals.get(customerId) ?? 0) + amount);
        const eventId = `evt_paid_${i}`;
        rows.push({
          source: "stripe",
          eventId,
          eventType: "invoice.paid",
          rawBody: JSON.stringify(stripeInvoicePaidEvent({ eventId, customerId, amount })),
          headers: {},
        });
      } else {
        const subscriptionId = `sub_Crash${String(i % SUBS).padStart(5, "0")}`;
        const version = 1_000_000 + ((i * 7919) % 100_003); // scrambled arrival order
        const eventId = `evt_sub_${i}`;
        const cur = newest.get(subscriptionId);
        if (!cur || version > cur.version) newest.set(subscriptionId, { version, eventId });
        rows.push({
          source: "stripe",
          eventId,
          eventType: "customer.subscription.updated",
          rawBody: JSON.stringify(stripeSubscriptionEvent({ eventId, created: version, subscriptionId })),
          headers: {},
        });
      }
    }
    for (const input of rows) await claimOne(db, input);

    let kills = 0;
    for (let round = 0; round < 12 && (await count(sql`status <> 'settled'`)) > 0; round++) {
      const w = startWorker();
      await w.ready;
      await new Promise((r) => setTimeout(r, 150 + ((round * 97) % 300)));
      const pendingBeforeKill = await count(sql`status <> 'settled'`);
      w.child.kill("SIGKILL");
      await w.exited;
      if (pendingBeforeKill > 0) kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    console.log(`[crash] ${kills} kills mid-drain`);

    // A clean run drains the rest (expired leases are reaped after WORKER_LEASE_MS), then stops on SIGTERM.
    const final = startWorker();
    await final.ready;
    const until = Date.now() + 60_000;
    while ((await count(sql`status <> 'settled'`)) > 0 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    final.child.kill("SIGTERM");
    expect(await final.exited).toBe(0);

    expect(await count(sql`status <> 'settled'`)).toBe(0);
    expect(await count(sql`status = 'processing' or lease_token is not null`)).toBe(0);
    // Exactly one successful attempt per event; killed attempts show up as failed ones, never as a second success.
    const [ok] = await query<{ n: number; distinct_events: number }>(
      db,
      sql`select count(*)::int as n, count(distinct event_id)::int as distinct_events from webhook_attempt where outcome <> 'failed'`,
    );
    expect(ok).toEqual({ n: rows.length, distinct_events: rows.length });
    const totals = await query<{ customer_id: string; amount_paid: string }>(
      db,
      sql`select customer_id, amount_paid::text from customer_total`,
    );
    expect(Object.fromEntries(totals.map((t) => [t.customer_id, Number(t.amount_paid)]))).toEqual(
      Object.fromEntries(expectedTotals),
    );
    const subs = await query<{ external_id: string; version: string; updated_by_event: string }>(
      db,
      sql`select external_id, version::text, updated_by_event from subscription`,
    );
    expect(
      Object.fromEntries(subs.map((s) => [s.external_id, { version: Number(s.version), eventId: s.updated_by_event }])),
    ).toEqual(Object.fromEntries(newest));
    const [transitions] = await query<{ n: number }>(db, sql`select count(*)::int as n from entity_transition`);
    expect(transitions?.n).toBe(rows.length);
    const [failed] = await query<{ n: number }>(
      db,
      sql`select count(*)::int as n from webhook_attempt where outcome = 'failed'`,
    );
    console.log(`[crash] ${failed?.n} attempts lost to kills, all retried`);
  }, 300_000); // thirteen worker processes start one after another: each start is seconds on a busy machine
});
