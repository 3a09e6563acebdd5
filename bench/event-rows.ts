/**
 * Bulk seeds of the ledger. `webhook_event` is a view of two tables (drizzle/0022_event_state.sql) whose trigger
 * writes row by row; a seed of millions instead fills a temp table shaped like the view and splits it into
 * webhook_event_body and webhook_event_state with two set-based inserts.
 */
import { getTableColumns, type Table } from "drizzle-orm";
import type postgres from "postgres";
import { webhookEventBody, webhookEventState } from "@/db/schema";

// Each table's columns by SQL name, from the drizzle schema (db/schema/ledger.ts).
const columnsOf = (table: Table) => Object.values(getTableColumns(table)).map((c) => c.name);
const BODY = columnsOf(webhookEventBody);
const STATE = columnsOf(webhookEventState);
// The view's defaults (0022), for the columns a seed leaves out.
const DEFAULTS: Record<string, string> = {
  status: "'claimed'",
  attempts: "0",
  attempts_base: "0",
  received_at: "now()",
  next_attempt_at: "now()",
  next_trigger: "'auto'",
  subject_ids: "'{}'::text[]",
  via: "'provider'",
};

/** The temp table `name` in the view's shape, empty. */
export async function createEventStaging(sql: postgres.Sql | postgres.TransactionSql, name = "bench_event") {
  await sql.unsafe(`drop table if exists ${name}`);
  await sql.unsafe(`create temp table ${name} as select * from webhook_event limit 0`);
  for (const [col, value] of Object.entries(DEFAULTS))
    await sql.unsafe(`alter table ${name} alter column ${col} set default ${value}`);
}

/** Copies the staged rows into the two tables, in key order. */
export async function splitEventStaging(sql: postgres.Sql | postgres.TransactionSql, name = "bench_event") {
  await sql.unsafe(`insert into webhook_event_body (${BODY.join(", ")})
    select ${BODY.join(", ")} from ${name} order by source, event_id`);
  await sql.unsafe(`insert into webhook_event_state (${STATE.join(", ")})
    select ${STATE.join(", ")} from ${name} order by source, event_id`);
}

/** `insert into webhook_event (…) select …` run as a staged bulk insert: same rows, no trigger per row. */
export async function insertEvents(
  sql: postgres.Sql,
  insertIntoView: string,
  params: postgres.ParameterOrJSON<never>[] = [],
): Promise<void> {
  const target = /\binsert into webhook_event\b/i;
  if (!target.test(insertIntoView)) throw new Error("insertEvents: not an insert into webhook_event");
  await createEventStaging(sql);
  await sql.unsafe(insertIntoView.replace(target, "insert into bench_event"), params);
  await splitEventStaging(sql);
  await sql.unsafe("drop table bench_event");
}
