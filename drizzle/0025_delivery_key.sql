-- migrate:no-transaction
-- Deliveries are keyed by their event, then id: every reader finds an event's deliveries by (source, event_id), in id
-- order, or a window by received_at; none by id alone. The id key beside an index on (source, event_id) made every
-- claim insert into one b-tree more than it needs (as 0024 did for attempts and timeline rows). Built concurrently
-- (claims keep arriving), swapped in under a lock taken with a short lock_timeout and retried, so a claim waits at
-- most that long behind it, and the old index dropped concurrently. Each statement can run again after an interruption.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "webhook_delivery_key" ON "webhook_delivery" USING btree ("source", "event_id", "id");--> statement-breakpoint
DO $$
DECLARE
  tries int := 0;
BEGIN
  IF to_regclass('webhook_delivery_key') IS NULL THEN
    RETURN;
  END IF;
  PERFORM set_config('lock_timeout', '200ms', true);
  LOOP
    BEGIN
      ALTER TABLE "webhook_delivery" DROP CONSTRAINT IF EXISTS "webhook_delivery_pkey",
        ADD CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY USING INDEX "webhook_delivery_key";
      RETURN;
    EXCEPTION WHEN lock_not_available THEN
      tries := tries + 1;
      IF tries >= 50 THEN
        RAISE;
      END IF;
      PERFORM pg_sleep(0.1 * tries);
    END;
  END LOOP;
END $$;--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "webhook_delivery_event_idx";
