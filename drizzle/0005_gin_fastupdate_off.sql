-- Hand-written in place of drizzle-kit's DROP + CREATE: ALTER keeps the index (no rebuild on a large ledger).
-- Entries already in the pending list stay there until the next VACUUM merges them; searches still see them.
ALTER INDEX "webhook_event_subject_ids_idx" SET (fastupdate = off);
