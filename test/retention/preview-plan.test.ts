import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { oldestSettledSql } from "@/lib/retention/preview";
import { setupTestDb } from "../db";

const { db } = setupTestDb();

describe("the retention preview's plan", () => {
  it("[retention] the oldest settled event is a bounded index walk, never an aggregate over every settled row", async () => {
    await db.execute(sql`
      insert into webhook_event_body (source, event_id, raw_body, headers)
      select 'stripe', 'evt_old_' || g, '{}', '{}' from generate_series(1, 60000) g`);
    await db.execute(sql`
      insert into webhook_event_state (source, event_id, event_type, status, received_at)
      select 'stripe', 'evt_old_' || g, 'x', case when g % 10 = 0 then 'dead' else 'settled' end,
             timestamptz '2026-01-01' + g * interval '1 second'
      from generate_series(1, 60000) g`);
    await db.execute(sql`analyze webhook_event_state, webhook_event_body`);

    const plan = rowsOf<{ "QUERY PLAN": string }>(await db.execute(sql`explain ${oldestSettledSql()}`))
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    // A bounded walk of an index, in order, stopped at the first settled row (status or received index, as the
    // planner likes); min() through the view was an aggregate over a scan of every settled row.
    expect(plan).toMatch(/^Limit/);
    expect(plan).toMatch(/Index (Only )?Scan using webhook_event_(status|received)_idx/);
    expect(plan).not.toMatch(/Seq Scan|Aggregate/);
    const [row] = rowsOf<{ at: string }>(await db.execute(sql`select (${oldestSettledSql()})::text as at`));
    expect(new Date(row!.at).toISOString()).toBe("2026-01-01T00:00:01.000Z");
  });
});
