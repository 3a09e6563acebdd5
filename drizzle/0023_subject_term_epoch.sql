-- The search directory's epoch: an erasure advances it before it deletes directory rows, so a worker that skips
-- rows it has seen committed (lib/ledger/term-cache.ts) knows when to stop trusting what it remembers.
CREATE SEQUENCE IF NOT EXISTS "subject_term_epoch";
