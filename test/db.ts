import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeEach } from "vitest";
import { connectPostgres, type Db, type DbHandle } from "@/db/client";

/** This test worker's own database, cloned from the run's migrated template (test/worker-database.ts). */
export function testDatabaseUrl(): string {
  const url = process.env.LEDGER_TEST_DATABASE_URL;
  if (!url) throw new Error("no test database: this file runs in the db tier (vitest.config.ts), which sets one up");
  return url;
}

/**
 * An empty database beside this worker's (no migrations), for tests of migrating or of an unmigrated server.
 * It is not dropped here: DROP DATABASE waits for a checkpoint, which under the suite's load took over a
 * minute; the run's teardown (test/global-setup.ts) drops every database named after the worker's.
 */
export async function scratchDatabase(suffix: string): Promise<string> {
  const url = new URL(testDatabaseUrl());
  const name = `${url.pathname.slice(1)}_${suffix}`;
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** Every table a test may write, emptied before each test. */
const TABLES = [
  "webhook_event_body",
  "webhook_event_state",
  "webhook_delivery",
  "webhook_attempt",
  "entity_version",
  "entity_transition",
  "subscription",
  "order",
  "customer_total",
  "replay_run",
  "audit_log",
  "auth_user",
  "auth_session",
  "auth_account",
  "auth_verification",
  "auth_rate_limit",
  "app_setting",
  "webhook_refusal",
  "webhook_source_secret",
  "webhook_source",
  "alert_rule",
  "alert_incident",
  "alert_notification",
  "alert_delivery",
  "alert_evaluator",
  "alert_source_activity",
  "webhook_tombstone",
  "retention_run",
  "subject_term",
  "forward_destination",
  "forward_destination_secret",
  "forward",
  "forward_attempt",
  "forward_entity",
];

/**
 * Empties `tables` and restarts their identity sequences, in one statement. Mostly DELETE, not TRUNCATE: a TRUNCATE
 * gives every table and index a new file, which on a quiet machine took 190 ms for these 34 empty tables against
 * 8 ms, and it ran before each of some 700 tests. A table that has statistics (an ANALYZE ran, by a test or by
 * autovacuum) or has grown past 1 MB is truncated: that resets pg_class's reltuples and relpages, which the gauges,
 * the overview's estimates and the planner read, so no test inherits another's. Foreign-key triggers are off for
 * the transaction (every row goes anyway).
 */
export async function emptyTables(db: Db, tables: readonly string[] = TABLES): Promise<void> {
  const list = tables.map((t) => `'${t}'`).join(", ");
  await db.execute(
    sql.raw(`do $$
      declare t text; seq text;
      begin
        perform set_config('session_replication_role', 'replica', true);
        foreach t in array array[${list}] loop
          if (select c.reltuples >= 0 from pg_class c where c.oid = format('%I', t)::regclass)
             or pg_relation_size(format('%I', t)::regclass) > 1048576 then
            execute format('truncate %I cascade', t);
          else
            execute format('delete from %I', t);
          end if;
          for seq in select pg_get_serial_sequence(format('%I', t), a.attname) from pg_attribute a
            where a.attrelid = format('%I', t)::regclass and a.attnum > 0 and not a.attisdropped loop
            if seq is not null then perform setval(seq, 1, false); end if;
          end loop;
        end loop;
      end $$`),
  );
}

/** A pool on this worker's database; every table is emptied before each test. */
export function setupTestDb(opts: { max?: number } = {}): DbHandle {
  const handle = connectPostgres(testDatabaseUrl(), { max: opts.max ?? 10 });
  beforeEach(() => emptyTables(handle.db));
  afterAll(async () => {
    await handle.close();
  });
  return handle;
}
