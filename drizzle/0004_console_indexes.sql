-- migrate:no-transaction
-- Hand-edited from drizzle-kit's plain CREATE INDEX, which holds a SHARE lock on webhook_event (every claim
-- waits) for the whole build. CONCURRENTLY lets claims go on; IF NOT EXISTS, with the migrator dropping an
-- INVALID leftover first, lets a run interrupted mid-build start over (db/migrate-steps.ts).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_event_type_idx" ON "webhook_event" USING btree ("event_type","received_at","event_id","source");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_event_status_idx" ON "webhook_event" USING btree ("status","received_at","event_id","source","event_type");
