CREATE TABLE "alert_delivery" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_delivery_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"notification_id" bigint NOT NULL,
	"channel" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_token" uuid,
	"lease_expires_at" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "alert_delivery_status_check" CHECK ("alert_delivery"."status" in ('pending','sending','sent','failed')),
	CONSTRAINT "alert_delivery_channel_check" CHECK ("alert_delivery"."channel" in ('slack','webhook'))
);
--> statement-breakpoint
CREATE TABLE "alert_evaluator" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_run_by" text,
	"last_error" text,
	"deliveries_scanned_to" timestamp with time zone,
	CONSTRAINT "alert_evaluator_one_row" CHECK ("alert_evaluator"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "alert_incident" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_incident_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"rule" text NOT NULL,
	"subject" text NOT NULL,
	"source" text,
	"event_id" text,
	"state" text DEFAULT 'firing' NOT NULL,
	"summary" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolution" text,
	CONSTRAINT "alert_incident_state_check" CHECK ("alert_incident"."state" in ('firing','resolved'))
);
--> statement-breakpoint
CREATE TABLE "alert_notification" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_notification_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"rule" text NOT NULL,
	"kind" text NOT NULL,
	"summary" text NOT NULL,
	"incident_ids" bigint[] DEFAULT '{}'::bigint[] NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_notification_kind_check" CHECK ("alert_notification"."kind" in ('firing','resolved'))
);
--> statement-breakpoint
CREATE TABLE "alert_rule" (
	"rule" text PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"threshold" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "alert_rule_rule_check" CHECK ("alert_rule"."rule" in ('dead_event','backlog_age','refusal_rate','source_silent'))
);
--> statement-breakpoint
CREATE TABLE "alert_source_activity" (
	"source" text PRIMARY KEY NOT NULL,
	"last_delivery_at" timestamp with time zone,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_delivery" ADD CONSTRAINT "alert_delivery_notification_id_alert_notification_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."alert_notification"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_delivery_due_idx" ON "alert_delivery" USING btree ("next_attempt_at") WHERE "alert_delivery"."status" in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "alert_delivery_notification_idx" ON "alert_delivery" USING btree ("notification_id");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_incident_firing_idx" ON "alert_incident" USING btree ("rule","subject") WHERE "alert_incident"."state" = 'firing';--> statement-breakpoint
CREATE INDEX "alert_incident_opened_idx" ON "alert_incident" USING btree ("opened_at");--> statement-breakpoint
CREATE INDEX "alert_notification_created_idx" ON "alert_notification" USING btree ("created_at");