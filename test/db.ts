import { sql } from "drizzle-orm";
import { afterAll, beforeEach } from "vitest";
import { connectPostgres, type DbHandle } from "@/db/client";

/** This test worker's own database, cloned from the run's migrated template (test/worker-database.ts). */
export function testDatabaseUrl(): string {
  const url = process.env.LEDGER_TEST_DATABASE_URL;
  if (!url) throw new Error("no test database: this file runs in the db tier (vitest.config.ts), which sets one up");
  return url;
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
            webhook_tombstone, retention_run, subject_term, delivery_minute, delivery_rollup
          restart identity cascade`,
    );
  });
  afterAll(async () => {
    await handle.close();
  });
  return handle;
}
