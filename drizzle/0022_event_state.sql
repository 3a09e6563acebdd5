-- The event's lifecycle (status, lease, attempts, outcome, resolution) moves out of the wide row into a narrow one,
-- so the raw body, headers and the subject index are written once, at the claim. Before this, each event's ~2.5 kB
-- row was rewritten twice more (lease, settle), never as a HOT update (status is in the partial indexes'
-- predicates), and each rewrite inserted into all ten indexes, the subject GIN included (bench:worker).
-- `webhook_event` stays, as a view of both halves with INSTEAD OF triggers, so every reader and every rare writer
-- keeps working; the hot paths (claim, lease, settle, prune) write the two tables directly.
-- On a large ledger this copies every event's lifecycle columns once, under the table's lock: run it in a quiet
-- window (about 10 s per million events on the bench machine).
ALTER TABLE "webhook_event" RENAME TO "webhook_event_body";--> statement-breakpoint
ALTER TABLE "webhook_event_body" RENAME CONSTRAINT "webhook_event_source_event_id_pk" TO "webhook_event_body_source_event_id_pk";--> statement-breakpoint
CREATE TABLE "webhook_event_state" (
	"source" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'claimed' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"attempts_base" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"settled_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_token" uuid,
	"leased_at" timestamp with time zone,
	"leased_by" text,
	"lease_expires_at" timestamp with time zone,
	"next_trigger" text DEFAULT 'auto' NOT NULL,
	"next_actor" text,
	"outcome" text,
	"resolution" text,
	"resolution_note" text,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "webhook_event_state_source_event_id_pk" PRIMARY KEY("source","event_id"),
	CONSTRAINT "webhook_event_status_check" CHECK ("status" in ('claimed','processing','settled','failed','dead'))
);--> statement-breakpoint
INSERT INTO "webhook_event_state" ("source", "event_id", "event_type", "received_at", "status", "attempts", "attempts_base",
	"last_error", "settled_at", "next_attempt_at", "lease_token", "leased_at", "leased_by", "lease_expires_at", "next_trigger",
	"next_actor", "outcome", "resolution", "resolution_note", "resolved_by", "resolved_at")
SELECT "source", "event_id", "event_type", "received_at", "status", "attempts", "attempts_base", "last_error", "settled_at",
	"next_attempt_at", "lease_token", "leased_at", "leased_by", "lease_expires_at", "next_trigger", "next_actor", "outcome",
	"resolution", "resolution_note", "resolved_by", "resolved_at"
FROM "webhook_event_body";--> statement-breakpoint
DROP INDEX "webhook_event_pending_idx";--> statement-breakpoint
DROP INDEX "webhook_event_lease_idx";--> statement-breakpoint
DROP INDEX "webhook_event_received_idx";--> statement-breakpoint
DROP INDEX "webhook_event_type_idx";--> statement-breakpoint
DROP INDEX "webhook_event_status_idx";--> statement-breakpoint
ALTER TABLE "webhook_event_body" DROP CONSTRAINT "webhook_event_status_check";--> statement-breakpoint
ALTER TABLE "webhook_event_body" DROP COLUMN "event_type", DROP COLUMN "received_at", DROP COLUMN "status",
	DROP COLUMN "attempts", DROP COLUMN "attempts_base", DROP COLUMN "last_error", DROP COLUMN "settled_at",
	DROP COLUMN "next_attempt_at", DROP COLUMN "lease_token", DROP COLUMN "leased_at", DROP COLUMN "leased_by",
	DROP COLUMN "lease_expires_at", DROP COLUMN "next_trigger", DROP COLUMN "next_actor", DROP COLUMN "outcome",
	DROP COLUMN "resolution", DROP COLUMN "resolution_note", DROP COLUMN "resolved_by", DROP COLUMN "resolved_at";--> statement-breakpoint
CREATE INDEX "webhook_event_pending_idx" ON "webhook_event_state" USING btree ("next_attempt_at") WHERE "status" in ('claimed', 'failed');--> statement-breakpoint
CREATE INDEX "webhook_event_lease_idx" ON "webhook_event_state" USING btree ("lease_expires_at") WHERE "status" = 'processing';--> statement-breakpoint
CREATE INDEX "webhook_event_received_idx" ON "webhook_event_state" USING btree ("received_at","event_id");--> statement-breakpoint
CREATE INDEX "webhook_event_type_idx" ON "webhook_event_state" USING btree ("event_type","received_at","event_id","source");--> statement-breakpoint
CREATE INDEX "webhook_event_status_idx" ON "webhook_event_state" USING btree ("status","received_at","event_id","source","event_type");--> statement-breakpoint
-- A LEFT JOIN on the body's primary key: a query that reads only lifecycle columns (counts by status, the pending
-- scan, the gauges) never touches the body (PostgreSQL removes the join). Every state row has its body: both are
-- written by one statement and deleted together (no foreign key: its check would lock the body row at every claim).
CREATE VIEW "webhook_event" AS
SELECT s."source", s."event_id", s."event_type", b."payload", b."raw_body", b."headers", s."status", s."attempts",
	s."last_error", s."received_at", s."settled_at", b."entity_type", b."entity_id", b."entity_version", b."subject_ids",
	s."next_attempt_at", s."lease_token", s."lease_expires_at", b."via", s."leased_at", s."leased_by", s."next_trigger",
	s."next_actor", s."attempts_base", b."intake_note", b."body_sha256", b."body_is_key", b."verified_with", s."outcome",
	s."resolution", s."resolution_note", s."resolved_by", s."resolved_at"
FROM "webhook_event_state" s
LEFT JOIN "webhook_event_body" b ON b."source" = s."source" AND b."event_id" = s."event_id";--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "status" SET DEFAULT 'claimed';--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "attempts" SET DEFAULT 0;--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "attempts_base" SET DEFAULT 0;--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "received_at" SET DEFAULT now();--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "next_attempt_at" SET DEFAULT now();--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "next_trigger" SET DEFAULT 'auto';--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "subject_ids" SET DEFAULT '{}'::text[];--> statement-breakpoint
ALTER VIEW "webhook_event" ALTER COLUMN "via" SET DEFAULT 'provider';--> statement-breakpoint
-- Writes through the view, for the console's rarer verbs, tests and seeds: each half is written only where it changed.
CREATE FUNCTION "webhook_event_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO webhook_event_body (source, event_id, payload, raw_body, headers, entity_type, entity_id, entity_version,
			subject_ids, via, intake_note, body_sha256, body_is_key, verified_with)
		VALUES (NEW.source, NEW.event_id, NEW.payload, NEW.raw_body, NEW.headers, NEW.entity_type, NEW.entity_id,
			NEW.entity_version, NEW.subject_ids, NEW.via, NEW.intake_note, NEW.body_sha256, NEW.body_is_key, NEW.verified_with);
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
				NEW.via, NEW.intake_note, NEW.body_sha256, NEW.body_is_key, NEW.verified_with)
			IS DISTINCT FROM ROW(OLD.payload, OLD.raw_body, OLD.headers, OLD.entity_type, OLD.entity_id, OLD.entity_version,
				OLD.subject_ids, OLD.via, OLD.intake_note, OLD.body_sha256, OLD.body_is_key, OLD.verified_with) THEN
			UPDATE webhook_event_body SET payload = NEW.payload, raw_body = NEW.raw_body, headers = NEW.headers,
				entity_type = NEW.entity_type, entity_id = NEW.entity_id, entity_version = NEW.entity_version,
				subject_ids = NEW.subject_ids, via = NEW.via, intake_note = NEW.intake_note, body_sha256 = NEW.body_sha256,
				body_is_key = NEW.body_is_key, verified_with = NEW.verified_with
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
$$;--> statement-breakpoint
CREATE TRIGGER "webhook_event_write" INSTEAD OF INSERT OR UPDATE OR DELETE ON "webhook_event"
	FOR EACH ROW EXECUTE FUNCTION "webhook_event_write"();
