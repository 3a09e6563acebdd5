-- migrate:no-transaction
-- The forward lease counts the requests in flight of a destination on every lease; without this index that count
-- read every forward ever sent. CONCURRENTLY: forwards go on being written while it is built.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "forward_sending_idx" ON "forward" ("destination","lease_expires_at") WHERE "forward"."status" = 'sending';
