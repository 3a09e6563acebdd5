-- migrate:no-transaction
-- An event sent by the console's "send a test event" (lib/sources/test-event.ts) is marked as a test when it is
-- claimed: the receiver reads the marker from the signed body (lib/providers/test-marker.ts), so only a holder of the
-- source's secret can set it. The worker never applies a test event to business state; the console badges it and
-- the events list filters on it. A column with a constant default is added without rewriting the table, under a
-- lock taken with a short lock_timeout and retried (as 0026). Tests are rare: a partial index finds them alone.
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
SELECT pg_temp.alter_briefly('ALTER TABLE "webhook_event_body" ADD COLUMN IF NOT EXISTS "test" boolean DEFAULT false NOT NULL');--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_event_test_idx" ON "webhook_event_body" USING btree ("source","event_id") WHERE "webhook_event_body"."test";--> statement-breakpoint
CREATE OR REPLACE VIEW "webhook_event" AS
SELECT s."source", s."event_id", s."event_type", b."payload", b."raw_body", b."headers", s."status", s."attempts",
	s."last_error", s."received_at", s."settled_at", b."entity_type", b."entity_id", b."entity_version", b."subject_ids",
	s."next_attempt_at", s."lease_token", s."lease_expires_at", b."via", s."leased_at", s."leased_by", s."next_trigger",
	s."next_actor", s."attempts_base", b."intake_note", b."body_sha256", b."body_is_key", b."verified_with", s."outcome",
	s."resolution", s."resolution_note", s."resolved_by", s."resolved_at", b."body_scope", b."test"
FROM "webhook_event_state" s
LEFT JOIN "webhook_event_body" b ON b."source" = s."source" AND b."event_id" = s."event_id";--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "test" SET DEFAULT false;--> statement-breakpoint
-- 0026's writes through the view, with the test marker.
CREATE OR REPLACE FUNCTION "webhook_event_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO webhook_event_body (source, event_id, payload, raw_body, headers, entity_type, entity_id, entity_version,
			subject_ids, via, intake_note, body_sha256, body_is_key, body_scope, verified_with, test)
		VALUES (NEW.source, NEW.event_id, NEW.payload, NEW.raw_body, NEW.headers, NEW.entity_type, NEW.entity_id,
			NEW.entity_version, NEW.subject_ids, NEW.via, NEW.intake_note, NEW.body_sha256, NEW.body_is_key, NEW.body_scope,
			NEW.verified_with, coalesce(NEW.test, false));
		INSERT INTO webhook_event_state (source, event_id, event_type, received_at, status, attempts, attempts_base, last_error,
			settled_at, next_attempt_at, lease_token, leased_at, leased_by, lease_expires_at, next_trigger, next_actor, outcome,
			resolution, resolution_note, resolved_by, resolved_at)
		VALUES (NEW.source, NEW.event_id, NEW.event_type, NEW.received_at, NEW.status, NEW.attempts, NEW.attempts_base,
			NEW.last_error, NEW.settled_at, NEW.next_attempt_at, NEW.lease_token, NEW.leased_at, NEW.leased_by,
			NEW.lease_expires_at, NEW.next_trigger, NEW.next_actor, NEW.outcome, NEW.resolution, NEW.resolution_note,
			NEW.resolved_by, NEW.resolved_at);
		RETURN NEW;
	ELSIF TG_OP = 'UPDATE' THEN
		IF NEW.source IS DISTINCT FROM OLD.source OR NEW.event_id IS DISTINCT FROM OLD.event_id THEN
			RAISE EXCEPTION 'an event''s source and id cannot change';
		END IF;
		IF ROW(NEW.payload, NEW.raw_body, NEW.headers, NEW.entity_type, NEW.entity_id, NEW.entity_version, NEW.subject_ids,
				NEW.via, NEW.intake_note, NEW.body_sha256, NEW.body_is_key, NEW.body_scope, NEW.verified_with, NEW.test)
			IS DISTINCT FROM ROW(OLD.payload, OLD.raw_body, OLD.headers, OLD.entity_type, OLD.entity_id, OLD.entity_version,
				OLD.subject_ids, OLD.via, OLD.intake_note, OLD.body_sha256, OLD.body_is_key, OLD.body_scope, OLD.verified_with,
				OLD.test) THEN
			UPDATE webhook_event_body SET payload = NEW.payload, raw_body = NEW.raw_body, headers = NEW.headers,
				entity_type = NEW.entity_type, entity_id = NEW.entity_id, entity_version = NEW.entity_version,
				subject_ids = NEW.subject_ids, via = NEW.via, intake_note = NEW.intake_note, body_sha256 = NEW.body_sha256,
				body_is_key = NEW.body_is_key, body_scope = NEW.body_scope, verified_with = NEW.verified_with,
				test = coalesce(NEW.test, false)
			WHERE source = OLD.source AND event_id = OLD.event_id;
		END IF;
		UPDATE webhook_event_state SET event_type = NEW.event_type, received_at = NEW.received_at, status = NEW.status,
			attempts = NEW.attempts, attempts_base = NEW.attempts_base, last_error = NEW.last_error, settled_at = NEW.settled_at,
			next_attempt_at = NEW.next_attempt_at, lease_token = NEW.lease_token, leased_at = NEW.leased_at,
			leased_by = NEW.leased_by, lease_expires_at = NEW.lease_expires_at, next_trigger = NEW.next_trigger,
			next_actor = NEW.next_actor, outcome = NEW.outcome, resolution = NEW.resolution,
			resolution_note = NEW.resolution_note, resolved_by = NEW.resolved_by, resolved_at = NEW.resolved_at
		WHERE source = OLD.source AND event_id = OLD.event_id
			AND ROW(event_type, received_at, status, attempts, attempts_base, last_error, settled_at, next_attempt_at,
				lease_token, leased_at, leased_by, lease_expires_at, next_trigger, next_actor, outcome, resolution,
				resolution_note, resolved_by, resolved_at)
			IS DISTINCT FROM ROW(NEW.event_type, NEW.received_at, NEW.status, NEW.attempts, NEW.attempts_base,
				NEW.last_error, NEW.settled_at, NEW.next_attempt_at, NEW.lease_token, NEW.leased_at, NEW.leased_by,
				NEW.lease_expires_at, NEW.next_trigger, NEW.next_actor, NEW.outcome, NEW.resolution, NEW.resolution_note,
				NEW.resolved_by, NEW.resolved_at);
		RETURN NEW;
	END IF;
	DELETE FROM webhook_event_state WHERE source = OLD.source AND event_id = OLD.event_id;
	DELETE FROM webhook_event_body WHERE source = OLD.source AND event_id = OLD.event_id;
	RETURN OLD;
END
$$;
