-- migrate:no-transaction
CREATE INDEX CONCURRENTLY IF NOT EXISTS "entity_transition_tie_idx" ON "entity_transition" USING btree ("recorded_at") WHERE "entity_transition"."outcome" = 'tie';
