import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { Tx } from "@/db/client";
import { writeSubscriptions } from "@/lib/handlers/subscription-store";
import { leaseDue, leaseDueSql } from "@/lib/ledger/lease";
import { fenceSql, settleSql } from "@/lib/ledger/process";
import { keyOf } from "@/lib/ledger/types";
import { setupTestDb } from "../db";

const { db } = setupTestDb();

const literal = (v: unknown) => `'${String(v).replace(/'/g, "''")}'`;

/**
 * The plan a prepared statement keeps (its generic plan; or, with `custom`, the plan made for these values), and
 * its rows; in the caller's transaction.
 */
async function cachedPlan(tx: Tx, statement: SQL, mode: "generic" | "custom" = "generic", run = true) {
  const query = new PgDialect().sqlToQuery(statement);
  await tx.execute(sql.raw(`set local plan_cache_mode = force_${mode}_plan`));
  await tx.execute(sql.raw(`prepare probe as ${query.sql}`));
  const args = query.params.map(literal).join(", ");
  const text = rowsOf<{ "QUERY PLAN": string }>(await tx.execute(sql.raw(`explain execute probe(${args})`)))
    .map((r) => r["QUERY PLAN"])
    .join("\n");
  const rows = run ? rowsOf<Record<string, unknown>>(await tx.execute(sql.raw(`execute probe(${args})`))) : [];
  await tx.execute(sql`deallocate probe`);
  return { text, rows };
}

describe("the worker's batch plans", () => {
  it("[worker] the fence finds each leased row by its primary key, even in a cached generic plan over stale statistics", async () => {
    // Statistics taken when nothing was processing (as after a seed, or between autovacuum runs); then 400 leases
    // and 60,000 settles leave the status and lease indexes' 'processing' ranges full of dead entries.
    await db.execute(sql`
      insert into webhook_event_body (source, event_id, raw_body, headers)
      select 'stripe', 'evt_f_' || g, '{}', '{}' from generate_series(1, 60000) g`);
    await db.execute(sql`
      insert into webhook_event_state (source, event_id, event_type, status, received_at)
      select 'stripe', 'evt_f_' || g, 'x', 'claimed', timestamptz '2026-01-01' + g * interval '1 second'
      from generate_series(1, 60000) g`);
    await db.execute(sql`analyze webhook_event_state`);
    await db.execute(sql`
      update webhook_event_state set status = 'processing', lease_token = gen_random_uuid(),
        lease_expires_at = now() + interval '30 seconds'`);
    await db.execute(sql`
      update webhook_event_state set status = 'settled', lease_token = null, lease_expires_at = null
      where event_id not in (select 'evt_f_' || g from generate_series(1, 400) g)`);

    const tokens = rowsOf<{ event_id: string; lease_token: string }>(
      await db.execute(sql`select event_id, lease_token from webhook_event_state where status = 'processing' limit 3`),
    );
    const events = tokens.map((t) => ({ source: "stripe", eventId: t.event_id, leaseToken: t.lease_token }));
    const plan = await db.transaction(async (tx) => {
      const { text, rows } = await cachedPlan(tx, fenceSql(events));
      return { text, owned: rows.map((r) => String(r.event_id)).sort() };
    });

    expect(plan.text).toMatch(/Index Scan using webhook_event_state_source_event_id_pk/);
    expect(plan.text).not.toMatch(/webhook_event_(status|lease)_idx|Seq Scan/);
    // And it still fences: the three leased rows, with their tokens, are ours.
    expect(plan.owned).toEqual(events.map((e) => e.eventId).sort());
  });

  it("[worker] the subscription write is planned at each call, never kept as a cached plan of the empty table", async () => {
    await db.execute(sql`analyze subscription`); // empty, as when a worker first runs
    const write = (id: string, version: number) => ({
      state: { externalId: id, customerId: "cus_1", plan: "price_1", status: "active" },
      entity: { type: "subscription", id, version },
      event: { eventId: `evt_${id}_${version}` },
    });
    const prepared = await db.transaction(async (tx) => {
      // More calls than PostgreSQL's five custom plans before it would keep a generic one.
      for (let v = 1; v <= 7; v++)
        await writeSubscriptions(tx, "stripe", [write("sub_a", v), write("sub_b", v)] as never);
      await tx.execute(fenceSql([{ source: "stripe", eventId: "evt_none", leaseToken: randomUUID() }]));
      return rowsOf<{ statement: string }>(await tx.execute(sql`select statement from pg_prepared_statements`)).map(
        (r) => r.statement,
      );
    });
    // The fence is prepared on this connection (so a prepared statement would show here); the write is not.
    expect(prepared.some((s) => s.includes("from webhook_event_state e"))).toBe(true);
    expect(prepared.filter((s) => s.includes("insert into subscription"))).toEqual([]);
    const rows = rowsOf<{ external_id: string; version: string | number }>(
      await db.execute(sql`select external_id, version from subscription order by 1`),
    );
    expect(rows.map((r) => [r.external_id, Number(r.version)])).toEqual([
      ["sub_a", 7],
      ["sub_b", 7],
    ]);
  });

  it("[worker] a batch of 250 is leased, fenced and settled by key or tuple id, never by hashing the whole table", async () => {
    // 20,000 claimed events, analyzed: a table small enough that the planner priced one hash of all its rows
    // below 250 probes (a lease of 250 spent 12 of its 22 ms hashing them, bench:worker).
    await db.execute(sql`
      insert into webhook_event_body (source, event_id, raw_body, headers)
      select 'stripe', 'evt_p_' || g, '{}', '{}' from generate_series(1, 20000) g`);
    await db.execute(sql`
      insert into webhook_event_state (source, event_id, event_type, status, received_at, next_attempt_at)
      select 'stripe', 'evt_p_' || g, 'x', 'claimed', now() - interval '1 hour' + g * interval '1 millisecond',
             now() - interval '1 hour' + g * interval '1 millisecond'
      from generate_series(1, 20000) g`);
    await db.execute(sql`analyze webhook_event_state`);
    await db.execute(sql`analyze webhook_event_body`);
    const opts = { workerId: "w-plan", leaseMs: 30_000, limit: 250 };
    const plans = await db.transaction(async (tx) => {
      const out: Record<string, string> = {};
      for (const mode of ["custom", "generic"] as const) {
        out[`lease ${mode}`] = (await cachedPlan(tx, leaseDueSql(opts), mode, false)).text;
      }
      return out;
    });
    const leased = await leaseDue(db, opts);
    expect(leased).toHaveLength(250);
    const fence = await db.transaction(async (tx) => ({
      custom: await cachedPlan(tx, fenceSql(leased), "custom"),
      generic: (await cachedPlan(tx, fenceSql(leased), "generic", false)).text,
    }));
    plans["fence custom"] = fence.custom.text;
    plans["fence generic"] = fence.generic;

    for (const [name, plan] of Object.entries(plans)) {
      expect(plan, name).not.toMatch(/Seq Scan on webhook_event_(state|body)/);
      expect(plan, name).toMatch(/Index Scan using webhook_event_state_source_event_id_pk/);
    }
    // And the statements still do their work: the fence owns the 250 it leased.
    expect(fence.custom.rows).toHaveLength(250);

    // The settle finds the fenced rows by the tuple ids the fence returned, and gives each its own outcome.
    const settled = await db.transaction(async (tx) => {
      const rowIds = new Map(
        rowsOf<{ source: string; event_id: string; row_id: string }>(await tx.execute(fenceSql(leased))).map((r) => [
          keyOf({ source: r.source, eventId: r.event_id }),
          r.row_id,
        ]),
      );
      const done = leased.map((event, i) => ({ event, outcome: i % 2 ? ("stale" as const) : ("settled" as const) }));
      const plan = {
        custom: (await cachedPlan(tx, settleSql(done, rowIds), "custom", false)).text,
        generic: (await cachedPlan(tx, settleSql(done, rowIds), "generic", false)).text,
      };
      await tx.execute(settleSql(done, rowIds));
      return plan;
    });
    for (const plan of [settled.custom, settled.generic]) {
      expect(plan).not.toMatch(/Seq Scan on webhook_event_state|Join/);
      expect(plan).toMatch(/Tid Scan on webhook_event_state/);
    }
    const outcomeOf = new Map(
      rowsOf<{ event_id: string; status: string; outcome: string }>(
        await db.execute(sql`select event_id, status, outcome from webhook_event_state where lease_token is null
                             and status = 'settled'`),
      ).map((r) => [r.event_id, r.outcome]),
    );
    expect(leased.map((e) => outcomeOf.get(e.eventId))).toEqual(leased.map((_, i) => (i % 2 ? "stale" : "settled")));
    const [attempts] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from webhook_attempt`));
    expect(attempts!.n).toBe(250);
  });
});
