-- migrate:no-transaction
ALTER TABLE "entity_transition" ADD COLUMN IF NOT EXISTS "prior_version" bigint;--> statement-breakpoint
ALTER TABLE "entity_transition" ADD COLUMN IF NOT EXISTS "prior_event_id" text;--> statement-breakpoint
ALTER TABLE "entity_transition" ADD COLUMN IF NOT EXISTS "resolution" text;--> statement-breakpoint
ALTER TABLE "webhook_attempt" ADD COLUMN IF NOT EXISTS "error_kind" text;--> statement-breakpoint
-- The wider check is added before the old one goes, NOT VALID (no scan under the lock), then validated
-- without blocking writes: the table is never without a check on its outcomes.
ALTER TABLE "webhook_attempt" DROP CONSTRAINT IF EXISTS "webhook_attempt_outcome_check_v2";--> statement-breakpoint
ALTER TABLE "webhook_attempt" ADD CONSTRAINT "webhook_attempt_outcome_check_v2" CHECK ("webhook_attempt"."outcome" in ('settled','failed','stale','ignored','tie')) NOT VALID;--> statement-breakpoint
ALTER TABLE "webhook_attempt" DROP CONSTRAINT IF EXISTS "webhook_attempt_outcome_check";--> statement-breakpoint
ALTER TABLE "webhook_attempt" RENAME CONSTRAINT "webhook_attempt_outcome_check_v2" TO "webhook_attempt_outcome_check";--> statement-breakpoint
ALTER TABLE "webhook_attempt" VALIDATE CONSTRAINT "webhook_attempt_outcome_check";
