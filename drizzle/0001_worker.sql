CREATE TABLE "entity_transition" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "entity_transition_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"source" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" text NOT NULL,
	"event_id" text NOT NULL,
	"version" bigint,
	"outcome" text NOT NULL,
	"changes" jsonb NOT NULL,
	"note" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "entity_version" (
	"source" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" text NOT NULL,
	"version" bigint NOT NULL,
	"event_id" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entity_version_source_entity_type_entity_id_pk" PRIMARY KEY("source","entity_type","entity_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempt" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_attempt_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"source" text NOT NULL,
	"event_id" text NOT NULL,
	"number" integer NOT NULL,
	"trigger" text NOT NULL,
	"actor" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"error" text,
	CONSTRAINT "webhook_attempt_trigger_check" CHECK ("webhook_attempt"."trigger" in ('auto','requeue','replay','process-now')),
	CONSTRAINT "webhook_attempt_outcome_check" CHECK ("webhook_attempt"."outcome" in ('settled','failed','stale','ignored'))
);
--> statement-breakpoint
CREATE TABLE "customer_total" (
	"source" text NOT NULL,
	"customer_id" text NOT NULL,
	"currency" text NOT NULL,
	"amount_paid" bigint NOT NULL,
	"invoice_count" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customer_total_source_customer_id_currency_pk" PRIMARY KEY("source","customer_id","currency")
);
--> statement-breakpoint
CREATE TABLE "order" (
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text,
	"email" text,
	"financial_status" text,
	"fulfillment_status" text,
	"total_price" text,
	"currency" text,
	"cancelled_at" timestamp with time zone,
	"version" bigint NOT NULL,
	"updated_by_event" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "order_source_external_id_pk" PRIMARY KEY("source","external_id")
);
--> statement-breakpoint
CREATE TABLE "subscription" (
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"customer_id" text,
	"plan" text,
	"status" text NOT NULL,
	"version" bigint NOT NULL,
	"updated_by_event" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscription_source_external_id_pk" PRIMARY KEY("source","external_id")
);
--> statement-breakpoint
ALTER TABLE "webhook_delivery" ADD COLUMN "reprocessed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN "leased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN "leased_by" text;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN "next_trigger" text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN "next_actor" text;--> statement-breakpoint
ALTER TABLE "webhook_event" ADD COLUMN "attempts_base" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "entity_transition_entity_idx" ON "entity_transition" USING btree ("source","entity_type","entity_id","id");--> statement-breakpoint
CREATE INDEX "entity_transition_event_idx" ON "entity_transition" USING btree ("source","event_id");--> statement-breakpoint
CREATE INDEX "webhook_attempt_event_idx" ON "webhook_attempt" USING btree ("source","event_id","number");--> statement-breakpoint
CREATE INDEX "webhook_event_lease_idx" ON "webhook_event" USING btree ("lease_expires_at") WHERE "webhook_event"."status" = 'processing';