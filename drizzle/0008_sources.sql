-- migrate:no-transaction
CREATE TABLE IF NOT EXISTS "webhook_refusal" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_refusal_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"source" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"reason" text NOT NULL,
	"detail" text NOT NULL,
	"status" integer NOT NULL,
	"size" integer,
	"remote_addr" text,
	"signature_header" text,
	"count" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "webhook_source" (
	"slug" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"name" text NOT NULL,
	"state" text DEFAULT 'active' NOT NULL,
	"tolerance_seconds" integer,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_source_state_check" CHECK ("webhook_source"."state" in ('active','paused','disabled')),
	CONSTRAINT "webhook_source_slug_check" CHECK ("webhook_source"."slug" ~ '^[a-z0-9][a-z0-9-]{0,62}$')
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "webhook_source_secret" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source" text NOT NULL,
	"sealed" text NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"expires_at" timestamp with time zone,
	CONSTRAINT "webhook_source_secret_source_webhook_source_slug_fk" FOREIGN KEY ("source") REFERENCES "public"."webhook_source"("slug") ON DELETE no action ON UPDATE no action
);
--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN IF NOT EXISTS "body_is_key" boolean;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_refusal_source_at_idx" ON "webhook_refusal" USING btree ("source","at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_source_secret_source_idx" ON "webhook_source_secret" USING btree ("source");--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "webhook_event_body_key_idx" ON "webhook_event" USING btree ("source","body_sha256") WHERE "webhook_event"."body_is_key";
