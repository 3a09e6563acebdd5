-- What no code uses any more (docs/benchmarks.md, "Verdicts"): the search directory's erasure epoch, which only a
-- worker-side cache of directory rows read; and the writes through the webhook_event view (0022, 0026, 0028), a
-- second write path beside the tables the claim, lease and settle write (the view stays, for reading: its column
-- defaults served only those writes); and the deliveries-per-minute rollup (0018), which no page read.
DROP SEQUENCE IF EXISTS "subject_term_epoch";--> statement-breakpoint
DROP TRIGGER IF EXISTS "webhook_event_write" ON "webhook_event";--> statement-breakpoint
DROP FUNCTION IF EXISTS "webhook_event_write"();--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "status" DROP DEFAULT, ALTER COLUMN "attempts" DROP DEFAULT,
	ALTER COLUMN "attempts_base" DROP DEFAULT, ALTER COLUMN "received_at" DROP DEFAULT,
	ALTER COLUMN "next_attempt_at" DROP DEFAULT, ALTER COLUMN "next_trigger" DROP DEFAULT,
	ALTER COLUMN "subject_ids" DROP DEFAULT, ALTER COLUMN "via" DROP DEFAULT, ALTER COLUMN "body_scope" DROP DEFAULT,
	ALTER COLUMN "test" DROP DEFAULT;--> statement-breakpoint
DROP TABLE IF EXISTS "delivery_minute";--> statement-breakpoint
DROP TABLE IF EXISTS "delivery_rollup";
