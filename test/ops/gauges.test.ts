import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { REFUSAL_REASONS } from "@/db/schema/sources";
import {
  backlogGaugesSql,
  createDbGaugeReader,
  createLedgerMetrics,
  deliveryOutcomeLabel,
  settledCountSql,
} from "@/lib/metrics";
import { setupTestDb } from "../db";
import { parseExposition, scrape, startOpsServer, valueOf } from "./helpers";
import { seedEvents } from "@/test/seed-events";

// The database gauges at 10 M rows: no count(*) of history, one query set per cache window.
const { db } = setupTestDb();
const dialect = new PgDialect();

/** `n` rows of `status`, cheaply (no payload to speak of). */
async function rows(status: string, n: number, prefix = status) {
  await seedEvents(
    db,
    "source, event_id, event_type, payload, raw_body, headers, status, received_at",
    sql`
    select 'stripe', ${prefix} || '_' || g, 'x', '{}', '{}', '{}', ${status}, now() - make_interval(secs => g)
    from generate_series(1, ${n}::int) g`,
  );
}

async function plan(query: SQL): Promise<string> {
  const result = rowsOf<{ "QUERY PLAN": string }>(await db.execute(sql`explain ${query}`));
  return result.map((r) => r["QUERY PLAN"]).join("\n");
}

/** A reader whose every statement is counted. */
function countingReader(opts: { ttlMs: number; settledExactBelow?: number; deadCap?: number; now?: () => number }) {
  const statements: string[] = [];
  const reader = createDbGaugeReader({
    ...opts,
    query: async (q) => {
      statements.push(dialect.sqlToQuery(q).sql);
      return db.execute(q);
    },
  });
  return { reader, statements };
}

describe("the ledger's gauges", () => {
  it("[ops] every refusal reason is an outcome label of its own; a reason the schema lacks is rejected", () => {
    expect(REFUSAL_REASONS.map((r) => deliveryOutcomeLabel("refused", r))).toEqual(
      REFUSAL_REASONS.map((r) => `refused_${r}`),
    );
    expect(deliveryOutcomeLabel("refused", "made_up")).toBe("rejected");
  });

  it("[ops] on a big table the backlog is read through the partial indexes and settled from pg_class, never by scanning history", async () => {
    await rows("settled", 60_000);
    await rows("claimed", 40);
    await rows("failed", 10);
    await rows("processing", 5);
    await rows("dead", 3);
    await db.execute(sql`analyze webhook_event_state, webhook_event_body`);

    const text = await plan(backlogGaugesSql());
    expect(text).not.toMatch(/Seq Scan on webhook_event/);
    // Each count is an index scan bounded to its own statuses: the pending partial index for claimed/failed;
    // for processing and dead, the lease partial index or the status index (status leads it), as the planner likes.
    expect(text).toMatch(/Index Scan using webhook_event_pending_idx on webhook_event/);
    expect(text).toMatch(/webhook_event_lease_idx|Index Cond: \(status = 'processing'::text\)/);
    expect(text).toMatch(/Index Cond: \(status = 'dead'::text\)/);
    expect(text.match(/on webhook_event_state\b/g)).toHaveLength(3);

    // Past the exact-count threshold (set low here: 10,000 stands for 200,000) only that one statement runs.
    const { reader, statements } = countingReader({ ttlMs: 60_000, settledExactBelow: 10_000 });
    const g = await reader.read();
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toMatch(/'settled'/);
    expect(g.events).toMatchObject({ claimed: 40, failed: 10, processing: 5, dead: 3 });
    expect(g.backlog).toBe(55);
    expect(g.estimated).toBe(true);
    expect(Math.abs(g.events.settled - 60_000)).toBeLessThan(3000); // ANALYZE's estimate
    expect(g.oldestPendingSeconds).toBeGreaterThanOrEqual(40);
  });

  it("[ops] a small table counts settled exactly, bounded by a limit even when pg_class's estimate is stale", async () => {
    await rows("settled", 30);
    await rows("claimed", 2);
    const { reader, statements } = countingReader({ ttlMs: 60_000 });
    const g = await reader.read();
    expect(statements).toHaveLength(2);
    expect(statements[1]).toBe(dialect.sqlToQuery(settledCountSql()).sql);
    expect(statements[1]).toMatch(/limit 200001/);
    expect(g).toMatchObject({ events: { settled: 30, claimed: 2 }, backlog: 2, estimated: false });
  });

  it("[ops] past the dead cap the dead count comes from the planner's statistics", async () => {
    await rows("settled", 20_000);
    await rows("dead", 2_000);
    await db.execute(sql`analyze webhook_event_state, webhook_event_body`);
    const { reader, statements } = countingReader({ ttlMs: 60_000, settledExactBelow: 10_000, deadCap: 500 });
    const g = await reader.read();
    expect(statements).toHaveLength(2);
    expect(statements[1]).toMatch(/pg_stats/);
    expect(g.estimated).toBe(true);
    expect(Math.abs(g.events.dead - 2000)).toBeLessThan(300);
  });

  it("[ops] a scrape storm costs one query set per cache window, and the next window one more", async () => {
    await rows("claimed", 3);
    // The window's clock is the test's: a storm that takes longer than a window on a loaded machine is still one.
    let clock = 0;
    const { reader, statements } = countingReader({ ttlMs: 1500, now: () => clock });
    const server = await startOpsServer(db, {
      metrics: createLedgerMetrics(),
      gauges: reader,
      metricsToken: undefined,
    });
    try {
      const storm = await Promise.all(Array.from({ length: 25 }, () => scrape(server.url)));
      expect(storm.map((s) => s.status)).toEqual(Array.from({ length: 25 }, () => 200));
      for (const s of storm) expect(valueOf(parseExposition(s.text), "webhook_backlog_events")).toBe(3);
      const perSet = statements.length;
      expect(perSet).toBe(2); // the backlog statement, and settled counted exactly on this small table
      await rows("failed", 1);
      const cached = parseExposition((await scrape(server.url)).text);
      expect(valueOf(cached, "webhook_backlog_events")).toBe(3); // still the window's answer
      expect(statements.length).toBe(perSet);

      clock += 1500;
      const fresh = await Promise.all(Array.from({ length: 10 }, () => scrape(server.url)));
      expect(statements.length).toBe(2 * perSet);
      for (const s of fresh) expect(valueOf(parseExposition(s.text), "webhook_backlog_events")).toBe(4);
    } finally {
      await server.close();
    }
  });
});
