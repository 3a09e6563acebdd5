CREATE TABLE "delivery_minute" (
	"minute" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	"deliveries" integer NOT NULL,
	"duplicates" integer NOT NULL,
	CONSTRAINT "delivery_minute_minute_source_pk" PRIMARY KEY("minute","source")
);
--> statement-breakpoint
CREATE TABLE "delivery_rollup" (
	"id" integer PRIMARY KEY NOT NULL,
	"folded_from" timestamp with time zone NOT NULL,
	"folded_to" timestamp with time zone NOT NULL,
	CONSTRAINT "delivery_rollup_one_row" CHECK ("delivery_rollup"."id" = 1)
);
