-- migrate:no-transaction
-- The body's hash, a key where the signature leaves the id or type out, is scoped as the id is (BodyKeyScope,
-- lib/providers/types.ts): Shopify sends one order's JSON as orders/create, orders/paid, … under one event id,
-- and a key on (source, body) alone answered the second topic "duplicate". Shopify's key rows get their topic as
-- scope, GitHub's keep "" (the whole source), so a capture of either re-sent later is still a duplicate; the rows
-- keyed only by the slug-named index (from before sources) become keys of their own. Tombstones keep "", which
-- covers every scope. Deliveries get `replaced`: an event keeps its first and latest duplicates, with a count.
-- The columns are added under a lock taken with a short lock_timeout and retried (as 0025), so a claim waits that
-- long at most. The update reads every body once and rewrites the Shopify ones: on a large ledger, a quiet window.
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
SELECT pg_temp.alter_briefly('ALTER TABLE "webhook_event_body" ADD COLUMN IF NOT EXISTS "body_scope" text DEFAULT '''' NOT NULL');--> statement-breakpoint
SELECT pg_temp.alter_briefly('ALTER TABLE "webhook_tombstone" ADD COLUMN IF NOT EXISTS "body_scope" text DEFAULT '''' NOT NULL');--> statement-breakpoint
SELECT pg_temp.alter_briefly('ALTER TABLE "webhook_delivery" ADD COLUMN IF NOT EXISTS "replaced" integer DEFAULT 0 NOT NULL');--> statement-breakpoint
UPDATE "webhook_event_body" b
SET "body_is_key" = true,
	"body_scope" = CASE WHEN b."headers" ?| array['x-shopify-topic', 'shopify-topic']
		THEN coalesce((SELECT s."event_type" FROM "webhook_event_state" s WHERE s."source" = b."source" AND s."event_id" = b."event_id"), '')
		ELSE '' END
WHERE b."body_sha256" IS NOT NULL AND b."body_scope" = ''
	AND ((b."body_is_key" IS NOT TRUE AND b."source" IN ('github', 'shopify'))
		OR (b."body_is_key" AND b."headers" ?| array['x-shopify-topic', 'shopify-topic']));--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "webhook_event_body_scope_key_idx" ON "webhook_event_body" USING btree ("source","body_scope","body_sha256") WHERE "webhook_event_body"."body_is_key";--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "webhook_event_unsigned_id_body_idx";--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "webhook_event_body_key_idx";--> statement-breakpoint
CREATE OR REPLACE VIEW "webhook_event" AS
SELECT s."source", s."event_id", s."event_type", b."payload", b."raw_body", b."headers", s."status", s."attempts",
	s."last_error", s."received_at", s."settled_at", b."entity_type", b."entity_id", b."entity_version", b."subject_ids",
	s."next_attempt_at", s."lease_token", s."lease_expires_at", b."via", s."leased_at", s."leased_by", s."next_trigger",
	s."next_actor", s."attempts_base", b."intake_note", b."body_sha256", b."body_is_key", b."verified_with", s."outcome",
	s."resolution", s."resolution_note", s."resolved_by", s."resolved_at", b."body_scope"
FROM "webhook_event_state" s
LEFT JOIN "webhook_event_body" b ON b."source" = s."source" AND b."event_id" = s."event_id";--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "body_scope" SET DEFAULT '';--> statement-breakpoint
-- 0022's writes through the view, with the scope.
CREATE OR REPLACE FUNCTION "webhook_event_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO webhook_event_body (source, event_id, payload, raw_body, headers, entity_type, entity_id, entity_version,
			subject_ids, via, intake_note, body_sha256, body_is_key, body_scope, verified_with)
		VALUES (NEW.source, NEW.event_id, NEW.payload, NEW.raw_body, NEW.headers, NEW.entity_type, NEW.entity_id,
			NEW.entity_version, NEW.subject_ids, NEW.via, NEW.intake_note, NEW.body_sha256, NEW.body_is_key, NEW.body_scope,
			NEW.verified_with);
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
				NEW.via, NEW.intake_note, NEW.body_sha256, NEW.body_is_key, NEW.body_scope, NEW.verified_with)
			IS DISTINCT FROM ROW(OLD.payload, OLD.raw_body, OLD.headers, OLD.entity_type, OLD.entity_id, OLD.entity_version,
				OLD.subject_ids, OLD.via, OLD.intake_note, OLD.body_sha256, OLD.body_is_key, OLD.body_scope, OLD.verified_with) THEN
			UPDATE webhook_event_body SET payload = NEW.payload, raw_body = NEW.raw_body, headers = NEW.headers,
				entity_type = NEW.entity_type, entity_id = NEW.entity_id, entity_version = NEW.entity_version,
				subject_ids = NEW.subject_ids, via = NEW.via, intake_note = NEW.intake_note, body_sha256 = NEW.body_sha256,
				body_is_key = NEW.body_is_key, body_scope = NEW.body_scope, verified_with = NEW.verified_with
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
