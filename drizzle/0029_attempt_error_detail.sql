-- migrate:no-transaction
-- A failed attempt whose handler found the payload lacking records where and what (lib/handlers/types.ts,
-- InputErrorDetail) beside its message, so the console opens the payload at that path without reading the
-- message's words. A nullable column is added without rewriting the table, under a short lock_timeout, retried.
CREATE OR REPLACE FUNCTION pg_temp.alter_briefly(ddl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  tries int := 0;
BEGIN
  PERFORM set_config('lock_timeout', '200ms', true);
  LOOP
    BEGIN
      EXECUTE ddl;
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
SELECT pg_temp.alter_briefly('ALTER TABLE "webhook_attempt" ADD COLUMN IF NOT EXISTS "error_detail" jsonb');
