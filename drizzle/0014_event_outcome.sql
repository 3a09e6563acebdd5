-- migrate:no-transaction
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "outcome" text;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "resolution" text;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "resolution_note" text;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "resolved_by" text;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "resolved_at" timestamp with time zone;
