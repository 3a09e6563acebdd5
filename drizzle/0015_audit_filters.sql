-- migrate:no-transaction
-- Hand-edited from drizzle-kit's plain CREATE/DROP INDEX: every console action and sign-in writes audit_log,
-- so the builds must not block those writes. The (at, id) index is built before the (at) one is dropped.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_log_at_id_idx" ON "audit_log" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_log_actor_idx" ON "audit_log" USING btree ("actor_email","at","id");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_log_action_idx" ON "audit_log" USING btree ("action","at","id");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_log_result_idx" ON "audit_log" USING btree ("result","at","id");--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "audit_log_at_idx";
