-- migrate:no-transaction
-- The attempt and timeline logs are keyed by what they are read by: an attempt by its event (then number, then id),
-- a timeline row by its entity (then id). Each primary key was the id alone beside an index on those columns, so
-- every row entered two b-trees where one serves every reader: one index entry fewer per attempt and per timeline
-- row (bench:worker, docs/benchmarks.md). The new key is built concurrently (the worker keeps writing), swapped in
-- under a brief lock, and the old index dropped concurrently. Each statement can run again after an interruption.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "webhook_attempt_key" ON "webhook_attempt" USING btree ("source", "event_id", "number", "id");--> statement-breakpoint
DO $$ BEGIN
  IF to_regclass('webhook_attempt_key') IS NOT NULL THEN
    ALTER TABLE "webhook_attempt" DROP CONSTRAINT IF EXISTS "webhook_attempt_pkey",
      ADD CONSTRAINT "webhook_attempt_pkey" PRIMARY KEY USING INDEX "webhook_attempt_key";
  END IF;
END $$;--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "webhook_attempt_event_idx";--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "entity_transition_key" ON "entity_transition" USING btree ("source", "entity_type", "entity_id", "id");--> statement-breakpoint
DO $$ BEGIN
  IF to_regclass('entity_transition_key') IS NOT NULL THEN
    ALTER TABLE "entity_transition" DROP CONSTRAINT IF EXISTS "entity_transition_pkey",
      ADD CONSTRAINT "entity_transition_pkey" PRIMARY KEY USING INDEX "entity_transition_key";
  END IF;
END $$;--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "entity_transition_entity_idx";
