import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { listDestinations, syncDeclaredDestinations } from "@/lib/forward/destinations";
import { leaseForwards, recordResults, type AttemptResult, type LeasedForward } from "@/lib/forward/lease";
import type { SendResult } from "@/lib/forward/send";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query } from "../worker/helpers";

const { db } = setupTestDb();

/** n settled events whose forwards wait for a destination nobody sends to (no forwarder runs here). */
async function leased(n: number) {
  await syncDeclaredDestinations(db, [
    {
      name: "billing",
      url: "http://127.0.0.1:9/hooks",
      secretEnv: "DEST_SECRET",
      mode: "every",
      format: "standard",
      maxInFlight: 50,
      timeoutMs: 2000,
      maxAttempts: 10,
      state: "active",
    },
  ]);
  for (let i = 0; i < n; i++) await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: `evt_rec_${i}` }));
  await drain(db);
  const [d] = await listDestinations(db);
  const forwards = await leaseForwards(db, d!, n);
  expect(forwards).toHaveLength(n);
  return { d: d!, forwards };
}

const ok: SendResult = { ok: true, status: 200, excerpt: "ok", durationMs: 12 };
const failed: SendResult = { ok: false, status: 500, excerpt: "boom", error: "HTTP 500", durationMs: 30 };
const slowDown: SendResult = { ok: false, status: 429, error: "HTTP 429", retryAfterMs: 2000, durationMs: 5 };
const results = (forwards: LeasedForward[], outcomes: SendResult[]): AttemptResult[] =>
  outcomes.map((result, i) => ({ f: forwards[i]!, result, startedAt: new Date() }));
const breaker = async () =>
  (
    await query<{ failures_in_row: number; open: boolean; breaker_openings: number }>(
      db,
      sql`select failures_in_row, coalesce(breaker_until > now(), false) as open, breaker_openings
          from forward_destination`,
    )
  )[0]!;

describe("recording a batch of attempts", () => {
  it("writes each result on its own lease: one whose lease was taken again is lost, the others are written", async () => {
    const { d, forwards } = await leased(3);
    // Another process took the third forward's lease after ours expired: our result for it must not land.
    await db.execute(sql`update forward set lease_token = gen_random_uuid() where id = ${forwards[2]!.id}`);
    const recorded = await recordResults(db, d, results(forwards, [ok, failed, ok]));
    expect(recorded).toEqual(["sent", "failed", "lease-lost"]);
    const rows = await query<{ event_id: string; status: string; last_status: number | null }>(
      db,
      sql`select event_id, status, last_status from forward order by id`,
    );
    expect(rows).toEqual([
      { event_id: "evt_rec_0", status: "sent", last_status: 200 },
      { event_id: "evt_rec_1", status: "failed", last_status: 500 },
      { event_id: "evt_rec_2", status: "sending", last_status: null },
    ]);
    const attempts = await query<{ forward_id: string; number: number; status_code: number; response_excerpt: string }>(
      db,
      sql`select forward_id::text, number, status_code, response_excerpt from forward_attempt order by forward_id`,
    );
    expect(attempts).toEqual([
      { forward_id: String(forwards[0]!.id), number: 1, status_code: 200, response_excerpt: "ok" },
      { forward_id: String(forwards[1]!.id), number: 1, status_code: 500, response_excerpt: "boom" },
    ]);
  });

  it("counts the failures after the batch's last success toward the breaker; a 429 is not a failure", async () => {
    const { d, forwards } = await leased(14);
    await db.execute(sql`update forward_destination set failures_in_row = 5`);
    await recordResults(db, d, results(forwards.slice(0, 5), [failed, ok, failed, slowDown, failed]));
    expect(await breaker()).toEqual({ failures_in_row: 2, open: false, breaker_openings: 0 });
    // Eight more failures make ten in a row: the breaker opens, once.
    await recordResults(db, d, results(forwards.slice(5, 13), Array<SendResult>(8).fill(failed)));
    expect(await breaker()).toEqual({ failures_in_row: 10, open: true, breaker_openings: 1 });
    // A success (the half-open probe) closes it.
    await recordResults(db, d, results(forwards.slice(13), [ok]));
    expect(await breaker()).toEqual({ failures_in_row: 0, open: false, breaker_openings: 0 });
  });

  it("the lease reads the breaker under its lock: nothing while open, one probe at a time once half-open", async () => {
    const { d, forwards } = await leased(12);
    await recordResults(db, d, results(forwards, Array<SendResult>(12).fill(failed)));
    expect((await breaker()).open).toBe(true);
    await db.execute(sql`update forward set next_attempt_at = now() where status = 'failed'`);
    // `d` is the listing from before the breaker opened, as another process (or a round that began earlier) holds it.
    expect(await leaseForwards(db, d, 5)).toHaveLength(0);
    await db.execute(sql`update forward_destination set breaker_until = now() - interval '1 second'`);
    const [probe] = await leaseForwards(db, d, 5);
    expect(probe).toBeDefined();
    // The probe was sent and its result not yet written (its lease is live): no second probe, from any process.
    expect(await leaseForwards(db, d, 5)).toHaveLength(0);
    await recordResults(db, d, results([probe!], [failed]));
    expect(await breaker()).toMatchObject({ open: true, breaker_openings: 2 });
    expect(await leaseForwards(db, d, 5)).toHaveLength(0);
    await db.execute(sql`update forward_destination set breaker_until = now() - interval '1 second'`);
    const [second] = await leaseForwards(db, d, 5);
    await recordResults(db, d, results([second!], [ok]));
    // Closed again: the destination's whole budget.
    expect(await leaseForwards(db, d, 50)).toHaveLength(10);
  });

  it("a 429's Retry-After sets when the forward is tried again", async () => {
    const { d, forwards } = await leased(1);
    await recordResults(db, d, results(forwards, [slowDown]));
    const [row] = await query<{ status: string; wait_ms: number }>(
      db,
      sql`select status, extract(epoch from next_attempt_at - now()) * 1000 as wait_ms from forward`,
    );
    expect(row!.status).toBe("failed");
    expect(Number(row!.wait_ms)).toBeGreaterThan(1000);
    expect(Number(row!.wait_ms)).toBeLessThanOrEqual(2000);
  });
});
