-- migrate:no-transaction
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "body_sha256" text;--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "webhook_event_unsigned_id_body_idx" ON "webhook_event" USING btree ("source","body_sha256") WHERE "webhook_event"."source" in ('github', 'shopify') and "webhook_event"."body_sha256" is not null;
