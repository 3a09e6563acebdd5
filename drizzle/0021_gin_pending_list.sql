-- Hand-written in place of drizzle-kit's DROP + CREATE: ALTER keeps the index (no rebuild on a large ledger).
-- Setting fastupdate takes a brief ACCESS EXCLUSIVE lock on the index (metadata only, no rewrite), as 0005 did.
ALTER INDEX "webhook_event_subject_ids_idx" SET (fastupdate = on, gin_pending_list_limit = 256);
