-- migrate:no-transaction
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "verified_with" text;
