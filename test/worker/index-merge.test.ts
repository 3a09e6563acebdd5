import { sql } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { connectPostgres } from "@/db/client";
import { createIndexMerger } from "@/lib/worker/index-merge";
import { createWorker } from "@/lib/worker/run";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { claim, query, testSettings } from "./helpers";

const { db } = setupTestDb();

/** Entries waiting in the subject index's pending list (pageinspect reads its metapage). */
async function pending(): Promise<number> {
  await db.execute(sql`create extension if not exists pageinspect`);
  const [row] = await query<{ n: string }>(
    db,
    sql`select n_pending_tuples::text as n from gin_metapage_info(get_raw_page('webhook_event_subject_ids_idx', 0))`,
  );
  return Number(row!.n);
}

const claimSome = async (n: number, tag: string) => {
  for (let i = 0; i < n; i++)
    await claim(
      db,
      "stripe",
      stripeSubscriptionEvent({ eventId: `evt_merge_${tag}_${i}`, customerId: `cus_Merge${tag}${i}` }),
    );
};

const searchable = async (customer: string) =>
  (
    await query<{ n: number }>(
      db,
      sql`select count(*)::int as n from webhook_event where subject_ids @> array[${customer}]::text[]`,
    )
  )[0]!.n;

describe("the subject index's pending list", () => {
  it("[worker] a claim's ids wait in the pending list (still found), and a merge moves them into the tree", async () => {
    await claimSome(20, "a");
    expect(await pending()).toBeGreaterThan(0);
    expect(await searchable("cus_Mergea7")).toBe(1);
    const logs: string[] = [];
    const merger = createIndexMerger(
      async () => db,
      (m) => logs.push(m),
    );
    expect(await merger.merge()).toBeGreaterThan(0);
    expect(await pending()).toBe(0);
    expect(await searchable("cus_Mergea7")).toBe(1);
    expect(logs).toEqual([]);
  });

  it("[worker] a running worker merges it on its own, every indexMergeMs", async () => {
    const worker = createWorker({
      getDb: async () => db,
      settings: testSettings({ indexMergeMs: 50, pollMs: 10_000, concurrency: 1 }),
      log: () => {},
    });
    await claimSome(10, "b");
    // Settled already: the worker's loops find nothing to lease, so no write of theirs refills the list.
    await db.execute(sql`update webhook_event_state set status = 'settled', settled_at = now()`);
    expect(await pending()).toBeGreaterThan(0);
    worker.start();
    try {
      const deadline = Date.now() + 10_000;
      while ((await pending()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(await pending()).toBe(0);
    } finally {
      await worker.stop();
    }
  });

  it("[worker] PostgreSQL refuses a user that does not own the index: one warning, then no more tries", async () => {
    await claimSome(5, "c");
    const role = `ledger_merge_${process.pid}`;
    await db.execute(sql.raw(`create role ${role} login`));
    const url = new URL(testDatabaseUrl());
    url.username = role;
    const other = connectPostgres(url.toString(), { max: 1 });
    try {
      const logs: string[] = [];
      const merger = createIndexMerger(
        async () => other.db,
        (m) => logs.push(m),
      );
      expect(await merger.merge()).toBeUndefined();
      expect(await merger.merge()).toBeUndefined();
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/pending list is left to PostgreSQL.*must be owner/);
      expect(await pending()).toBeGreaterThan(0);
    } finally {
      await other.close();
      const admin = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop role if exists ${role}`);
      await admin.end();
    }
  });
});
