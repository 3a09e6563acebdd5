-- Forwarding to the team's own endpoints (lib/forward): destinations, their sealed secrets, the outbox the settle
-- writes, every attempt, and newest mode's per-destination guard. New tables only: nothing existing is locked.
CREATE TABLE IF NOT EXISTS "forward_destination" (
  "name" text PRIMARY KEY NOT NULL,
  "url" text NOT NULL,
  "state" text DEFAULT 'active' NOT NULL,
  "mode" text DEFAULT 'every' NOT NULL,
  "format" text DEFAULT 'standard' NOT NULL,
  "sources" text[],
  "types" text[],
  "max_in_flight" integer DEFAULT 10 NOT NULL,
  "timeout_ms" integer DEFAULT 5000 NOT NULL,
  "rate_per_second" integer,
  "max_attempts" integer DEFAULT 10 NOT NULL,
  "origin" text DEFAULT 'console' NOT NULL,
  "secret_env" text,
  "failures_in_row" integer DEFAULT 0 NOT NULL,
  "breaker_until" timestamp with time zone,
  "breaker_openings" integer DEFAULT 0 NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "forward_destination_name_check" CHECK ("name" ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  CONSTRAINT "forward_destination_state_check" CHECK ("state" in ('active','paused','disabled'))
);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forward_destination_secret" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "destination" text NOT NULL REFERENCES "forward_destination"("name") ON DELETE cascade,
  "sealed" text NOT NULL,
  "fingerprint" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "expires_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_destination_secret_destination_idx" ON "forward_destination_secret" ("destination");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forward" (
  "id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY NOT NULL,
  "destination" text NOT NULL REFERENCES "forward_destination"("name") ON DELETE cascade,
  "source" text NOT NULL,
  "event_id" text NOT NULL,
  "entity_key" text,
  "entity_version" bigint,
  "status" text DEFAULT 'pending' NOT NULL,
  "attempts" integer DEFAULT 0 NOT NULL,
  "next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
  "lease_token" uuid,
  "lease_expires_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "sent_at" timestamp with time zone,
  "last_error" text,
  "last_status" integer,
  CONSTRAINT "forward_event_fk" FOREIGN KEY ("source","event_id")
    REFERENCES "webhook_event_body"("source","event_id") ON DELETE cascade
);--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "forward_destination_event_idx" ON "forward" ("destination","source","event_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_event_idx" ON "forward" ("source","event_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_due_idx" ON "forward" ("destination","next_attempt_at")
  WHERE "status" in ('pending','failed','sending');--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_entity_idx" ON "forward" ("destination","entity_key")
  WHERE "entity_key" is not null and "status" in ('pending','failed','sending','dead');--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forward_attempt" (
  "id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY NOT NULL,
  "forward_id" bigint NOT NULL REFERENCES "forward"("id") ON DELETE cascade,
  "destination" text NOT NULL,
  "number" integer NOT NULL,
  "started_at" timestamp with time zone NOT NULL,
  "duration_ms" integer NOT NULL,
  "status_code" integer,
  "response_excerpt" text,
  "error" text
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_attempt_forward_idx" ON "forward_attempt" ("forward_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_attempt_destination_idx" ON "forward_attempt" ("destination","started_at");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forward_entity" (
  "destination" text NOT NULL REFERENCES "forward_destination"("name") ON DELETE cascade,
  "entity_key" text NOT NULL,
  "version" bigint NOT NULL,
  "event_id" text NOT NULL,
  CONSTRAINT "forward_entity_pk" PRIMARY KEY ("destination","entity_key")
);
--> statement-breakpoint
-- A destination whose attempts keep failing (its breaker open) is an incident: the rule is new, the check widens.
ALTER TABLE "alert_rule" DROP CONSTRAINT IF EXISTS "alert_rule_rule_check";--> statement-breakpoint
ALTER TABLE "alert_rule" ADD CONSTRAINT "alert_rule_rule_check"
  CHECK ("rule" in ('dead_event','backlog_age','refusal_rate','source_silent','destination_failing'));
