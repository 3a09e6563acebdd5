CREATE TABLE "webhook_delivery" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_delivery_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"source" text NOT NULL,
	"event_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"via" text NOT NULL,
	"claimed" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_event" (
	"source" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"raw_body" text NOT NULL,
	"headers" jsonb NOT NULL,
	"status" text DEFAULT 'claimed' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	"entity_type" text,
	"entity_id" text,
	"entity_version" bigint,
	"subject_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_token" uuid,
	"lease_expires_at" timestamp with time zone,
	"via" text DEFAULT 'provider' NOT NULL,
	CONSTRAINT "webhook_event_source_event_id_pk" PRIMARY KEY("source","event_id"),
	CONSTRAINT "webhook_event_status_check" CHECK ("webhook_event"."status" in ('claimed','processing','settled','failed','dead')),
	CONSTRAINT "webhook_event_via_check" CHECK ("webhook_event"."via" in ('provider','replay'))
);
--> statement-breakpoint
CREATE INDEX "webhook_delivery_event_idx" ON "webhook_delivery" USING btree ("source","event_id");--> statement-breakpoint
CREATE INDEX "webhook_delivery_received_idx" ON "webhook_delivery" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "webhook_event_pending_idx" ON "webhook_event" USING btree ("next_attempt_at") WHERE "webhook_event"."status" in ('claimed', 'failed');--> statement-breakpoint
CREATE INDEX "webhook_event_received_idx" ON "webhook_event" USING btree ("received_at","event_id");--> statement-breakpoint
CREATE INDEX "webhook_event_subject_ids_idx" ON "webhook_event" USING gin ("subject_ids");--> statement-breakpoint
CREATE INDEX "webhook_event_entity_idx" ON "webhook_event" USING btree ("source","entity_type","entity_id");