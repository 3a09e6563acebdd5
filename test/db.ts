import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeEach } from "vitest";
import { connectPostgres, type DbHandle } from "@/db/client";

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

/** A pool on this worker's database; every table is emptied before each test. */
export function setupTestDb(opts: { max?: number } = {}): DbHandle {
  const handle = connectPostgres(testDatabaseUrl(), { max: opts.max ?? 10 });
  beforeEach(async () => {
    await handle.db.execute(
      sql`truncate
            webhook_event_body, webhook_event_state, webhook_delivery, webhook_attempt, entity_version, entity_transition,
            subscription, "order", customer_total, replay_run, audit_log,
            auth_user, auth_session, auth_account, auth_verification, auth_rate_limit, app_setting,
            webhook_refusal, webhook_source_secret, webhook_source,
            alert_rule, alert_incident, alert_notification, alert_delivery, alert_evaluator, alert_source_activity,
            webhook_tombstone, retention_run, subject_term,
            forward_destination, forward_destination_secret, forward, forward_attempt, forward_entity
          restart identity cascade`,
    );
  });
  afterAll(async () => {
    await handle.close();
  });
  return handle;
}
