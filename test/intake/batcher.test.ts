import { createServer, type AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { connectPostgres, rowsOf } from "@/db/client";
import { isDataError, UnavailableError, ValidationError } from "@/lib/errors";
import { ClaimBatcher } from "@/lib/intake/batcher";
import { parseClaim, type Claim } from "@/lib/intake/claim";
import { setupTestDb, testDatabaseUrl } from "../db";

const { db } = setupTestDb();

const event = (eventId: string, rawBody = JSON.stringify({ id: eventId, type: "invoice.paid" })): Claim =>
  parseClaim({ source: "stripe", eventId, eventType: "invoice.paid", rawBody, headers: {} });

const deliveries = async () =>
  rowsOf<{ event_id: string; claimed: boolean; at: string }>(
    await db.execute(sql`select event_id, claimed, received_at::text as at from webhook_delivery order by id`),
  );

describe("ClaimBatcher", () => {
  it("[ledger] deliveries arriving while a claim runs share the next statement, and each gets its own answer", async () => {
    const batcher = new ClaimBatcher(db, { stallMs: 60_000 }); // no escape past a slow first statement
    // A finds nothing running and goes alone; the rest queue behind it and go together.
    const ids = ["evt_a", "evt_b", "evt_a", "evt_c", "evt_c", "evt_d"];
    const results = await Promise.all(ids.map((id) => batcher.claim(event(id))));
    expect(results.map((r) => r.claimed)).toEqual([true, true, false, true, false, true]);

    const rows = await deliveries();
    expect(rows.map((r) => [r.event_id, r.claimed])).toEqual(ids.map((id, n) => [id, results[n]!.claimed]));
    // now() is the statement's transaction time: one timestamp per statement, so two statements in all.
    expect(new Set(rows.slice(1).map((r) => r.at)).size).toBe(1);
    expect(rows[0]!.at).not.toBe(rows[1]!.at);
    const [count] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from webhook_event`));
    expect(count!.n).toBe(4);
  });

  it("[ledger] a batch stops at maxBatchBytes of raw bodies, so large payloads are split over statements", async () => {
    const batcher = new ClaimBatcher(db, { stallMs: 60_000, maxBatchBytes: 100 });
    const big = (id: string) => event(id, JSON.stringify({ id, type: "invoice.paid", pad: "x".repeat(40) })); // ≈ 75 bytes
    const ids = ["evt_s0", "evt_s1", "evt_s2", "evt_s3"];
    expect((await Promise.all(ids.map((id) => batcher.claim(big(id))))).every((r) => r.claimed)).toBe(true);
    const small = new ClaimBatcher(db, { stallMs: 60_000, maxBatchBytes: 100 });
    expect(
      (await Promise.all(["evt_t0", "evt_t1", "evt_t2"].map((id) => small.claim(event(id))))).every((r) => r.claimed),
    ).toBe(true);
    const rows = await deliveries();
    // One ≈75-byte body per statement: four statements for the big ones; the ≈40-byte ones pair up after the first.
    expect(new Set(rows.slice(0, 4).map((r) => r.at)).size).toBe(4);
    expect(new Set(rows.slice(4).map((r) => r.at)).size).toBe(2);
  });

  it("[ledger] a payload PostgreSQL refuses fails only its own delivery; its neighbours are claimed", async () => {
    const batcher = new ClaimBatcher(db, { stallMs: 60_000 });
    // A number beyond numeric's range: JSON.parse takes it, jsonb refuses it (22003).
    const refused = event("evt_bad", `{"id":"evt_bad","n":1${"0".repeat(140_000)}}`);
    const settled = await Promise.allSettled(
      [event("evt_first"), event("evt_b1"), refused, event("evt_b2")].map((e) => batcher.claim(e)),
    );
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(isDataError((settled[2] as PromiseRejectedResult).reason)).toBe(true);
    const events = rowsOf<{ event_id: string }>(
      await db.execute(sql`select event_id from webhook_event order by event_id`),
    );
    expect(events.map((e) => e.event_id)).toEqual(["evt_b1", "evt_b2", "evt_first"]);
    expect((await deliveries()).map((r) => r.event_id).sort()).toEqual(["evt_b1", "evt_b2", "evt_first"]);
  });

  it("[ledger] a claim stuck on a row lock does not hold back the deliveries behind it", async () => {
    const batcher = new ClaimBatcher(db, { stallMs: 50 });
    const other = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const ready = new Promise<void>((r) => (inserted = r));
    // Another transaction has inserted evt_locked's body row (the claim's lock) and not committed: a claim of it
    // must wait for that one.
    const blocker = other
      .begin(async (tx) => {
        await tx`insert into webhook_event_body (source, event_id, raw_body, headers)
                 values ('stripe', 'evt_locked', '{}', '{}')`;
        inserted();
        await held;
        throw new Error("roll back");
      })
      .catch(() => {});
    try {
      await ready;
      let lockedDone = false;
      const locked = batcher.claim(event("evt_locked")).finally(() => (lockedDone = true));
      const free = await Promise.race([
        batcher.claim(event("evt_free")),
        new Promise<"held back">((r) => setTimeout(() => r("held back"), 5000)),
      ]);
      expect(free).toEqual({ claimed: true, reprocessed: false });
      expect(lockedDone).toBe(false);
      release();
      // The other transaction rolled back, so the waiting claim takes the event after all.
      expect(await locked).toEqual({ claimed: true, reprocessed: false });
    } finally {
      release();
      await blocker;
      await other.end();
    }
  });

  it("[ledger] an input that fails validation is refused at the edge, naming the field, before it can join a batch", () => {
    const bad = () => parseClaim({ source: "stripe", eventId: "evt_v1", eventType: "", rawBody: "{}", headers: {} });
    expect(bad).toThrow(ValidationError);
    expect(bad).toThrow(/^eventType: /);
    expect(() =>
      parseClaim({ source: "stripe", eventId: "evt_\u0000", eventType: "x", rawBody: "{}", headers: {} }),
    ).toThrow(/eventId: holds U\+0000/);
  });

  it("[ledger] when the database is unreachable every delivery in the batch gets the error", async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const { port } = srv.address() as AddressInfo;
    await new Promise((r) => srv.close(r));
    const dead = connectPostgres(`postgres://postgres@127.0.0.1:${port}/nope`, { connectTimeoutSeconds: 2 });
    try {
      const batcher = new ClaimBatcher(dead.db);
      const settled = await Promise.allSettled(["evt_x", "evt_y", "evt_z"].map((id) => batcher.claim(event(id))));
      expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
      // The database's own error (the driver's connection refused, under drizzle's query error), not a timeout.
      const codes = settled.map(
        (s) => ((s as PromiseRejectedResult).reason as { cause?: { code?: string } }).cause?.code,
      );
      expect(codes).toEqual(["ECONNREFUSED", "ECONNREFUSED", "ECONNREFUSED"]);
    } finally {
      await dead.close();
    }
  });

  describe("bounded in time and memory", () => {
    /** Another transaction holds evt_locked's body row uncommitted, so a claim of it waits on the row lock. */
    async function holdLock(eventId: string) {
      const other = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let inserted!: () => void;
      const ready = new Promise<void>((r) => (inserted = r));
      const tx = other
        .begin(async (t) => {
          await t`insert into webhook_event_body (source, event_id, raw_body, headers)
                  values ('stripe', ${eventId}, '{}', '{}')`;
          inserted();
          await held;
          throw new Error("roll back");
        })
        .catch(() => {});
      await ready;
      return {
        release: async () => {
          release();
          await tx;
          await other.end();
        },
      };
    }

    it("[ledger] a claim that cannot finish is answered unavailable within the timeout; one still queued is never written", async () => {
      const lock = await holdLock("evt_locked");
      try {
        const batcher = new ClaimBatcher(db, { timeoutMs: 300, maxInFlight: 1, stallMs: 10 });
        const started = performance.now();
        const [inFlight, queued] = await Promise.allSettled([
          batcher.claim(event("evt_locked")),
          batcher.claim(event("evt_queued")),
        ]);
        const ms = performance.now() - started;
        expect(ms).toBeLessThan(1500);
        expect(inFlight.status === "rejected" && inFlight.reason).toBeInstanceOf(UnavailableError);
        expect((inFlight as PromiseRejectedResult).reason.message).toMatch(/may still commit/);
        expect(queued.status === "rejected" && queued.reason).toBeInstanceOf(UnavailableError);
        expect((queued as PromiseRejectedResult).reason.message).toMatch(/nothing was written/);
        expect(batcher.load.queued).toBe(0);
      } finally {
        await lock.release();
      }
      // The in-flight claim commits once the lock goes (harmless: the provider's retry is a duplicate);
      // the queued one was never sent.
      await expect
        .poll(async () => (await deliveries()).map((r) => r.event_id), { timeout: 5000 })
        .toEqual(["evt_locked"]);
      const again = new ClaimBatcher(db);
      expect(await again.claim(event("evt_locked"))).toEqual({ claimed: false, reprocessed: false });
      expect(await again.claim(event("evt_queued"))).toEqual({ claimed: true, reprocessed: false });
    });

    it("[ledger] past the waiting room's bound (count or bytes) a claim is refused at once, and the bytes are given back", async () => {
      const lock = await holdLock("evt_hold");
      try {
        const batcher = new ClaimBatcher(db, {
          timeoutMs: 5000,
          maxInFlight: 1,
          stallMs: 60_000,
          maxQueue: 2,
          maxQueueBytes: 200,
        });
        const first = batcher.claim(event("evt_hold")); // in flight, stuck on the lock
        const waiting = [batcher.claim(event("evt_q1"))];
        const started = performance.now();
        // ≈ 40 bytes each are held: a fourth body of ≈ 150 bytes is past 200 bytes.
        await expect(
          batcher.claim(event("evt_big", JSON.stringify({ id: "evt_big", pad: "x".repeat(120) }))),
        ).rejects.toThrow(/intake full/);
        waiting.push(batcher.claim(event("evt_q2")));
        await expect(batcher.claim(event("evt_q3"))).rejects.toBeInstanceOf(UnavailableError);
        // At once: with the lock still held nothing could have finished, and a claim that waited would have been
        // answered by the 5 s timeout; the bound is far under that, and far over a loaded machine's 150 ms.
        expect(performance.now() - started).toBeLessThan(2000);
        expect(batcher.load).toMatchObject({ queued: 2, inFlight: 1 });
        await lock.release();
        expect((await Promise.all([first, ...waiting])).map((r) => r.claimed)).toEqual([true, true, true]);
        expect(batcher.load).toEqual({ queued: 0, bytes: 0, inFlight: 0 });
      } finally {
        await lock.release().catch(() => {});
      }
    });
  });
});
