import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { fenceSql } from "@/lib/ledger/process";
import { setupTestDb } from "../db";

const { db } = setupTestDb();

describe("the fence's plan", () => {
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
    const query = new PgDialect().sqlToQuery(fenceSql(events));
    // The worker's statements are prepared and their plans cached: ask for the plan it would keep.
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      await tx.execute(sql.raw(`prepare fence_probe as ${query.sql}`));
      const literal = (v: unknown) => `'${String(v).replace(/'/g, "''")}'`;
      const lines = rowsOf<{ "QUERY PLAN": string }>(
        await tx.execute(sql.raw(`explain execute fence_probe(${query.params.map(literal).join(", ")})`)),
      ).map((r) => r["QUERY PLAN"]);
      const owned = rowsOf<{ event_id: string }>(
        await tx.execute(sql.raw(`execute fence_probe(${query.params.map(literal).join(", ")})`)),
      );
      await tx.execute(sql`deallocate fence_probe`);
      return { text: lines.join("\n"), owned: owned.map((r) => r.event_id).sort() };
    });

    expect(plan.text).toMatch(/Index Scan using webhook_event_state_source_event_id_pk/);
    expect(plan.text).not.toMatch(/webhook_event_(status|lease)_idx|Seq Scan/);
    // And it still fences: the three leased rows, with their tokens, are ours.
    expect(plan.owned).toEqual(events.map((e) => e.eventId).sort());
  });
});
