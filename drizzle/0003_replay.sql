CREATE TABLE "replay_run" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "replay_run_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor" text NOT NULL,
	"source" text NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"until" timestamp with time zone NOT NULL,
	"types" text[] DEFAULT '{}'::text[] NOT NULL,
	"dry_run" boolean DEFAULT false NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"fetched" integer DEFAULT 0 NOT NULL,
	"new" integer DEFAULT 0 NOT NULL,
	"duplicates" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"pages" integer DEFAULT 0 NOT NULL,
	"cursor" text,
	"last_error" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	CONSTRAINT "replay_run_status_check" CHECK ("replay_run"."status" in ('running','succeeded','failed','cancelled')),
	CONSTRAINT "replay_run_source_check" CHECK ("replay_run"."source" in ('stripe','github','paddle'))
);
--> statement-breakpoint
CREATE INDEX "replay_run_started_idx" ON "replay_run" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "replay_run_running_idx" ON "replay_run" USING btree ("lease_expires_at") WHERE "replay_run"."status" = 'running';