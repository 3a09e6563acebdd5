CREATE TABLE "retention_run" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "retention_run_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"events_before" timestamp with time zone NOT NULL,
	"tombstones_before" timestamp with time zone NOT NULL,
	"events" integer DEFAULT 0 NOT NULL,
	"deliveries" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"transitions" integer DEFAULT 0 NOT NULL,
	"tombstones" integer DEFAULT 0 NOT NULL,
	"replay_runs" integer DEFAULT 0 NOT NULL,
	"audit_rows" integer DEFAULT 0 NOT NULL,
	"batches" integer DEFAULT 0 NOT NULL,
	"error" text,
	CONSTRAINT "retention_run_status_check" CHECK ("retention_run"."status" in ('running','succeeded','failed','cancelled'))
);
--> statement-breakpoint
CREATE TABLE "webhook_tombstone" (
	"source" text NOT NULL,
	"event_id" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"body_sha256" "bytea",
	"body_key" boolean DEFAULT false NOT NULL,
	CONSTRAINT "webhook_tombstone_source_event_id_pk" PRIMARY KEY("source","event_id")
);
--> statement-breakpoint
CREATE INDEX "retention_run_started_idx" ON "retention_run" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "webhook_tombstone_body_idx" ON "webhook_tombstone" USING btree ("source","body_sha256") WHERE "webhook_tombstone"."body_key";--> statement-breakpoint
CREATE INDEX "webhook_tombstone_received_idx" ON "webhook_tombstone" USING brin ("received_at");