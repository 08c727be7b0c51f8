-- Fewer index entries per paid call (issue 4 benchmark). Every paid call inserts a ledger entry and a
-- call row and later updates the call row with its outcome (a new tuple: `status` is in a partial index
-- predicate, so the update cannot be HOT); each index costs an entry, and WAL, on each of those writes.
-- Before: 6 indexes on ledger_entries and 7 on calls, 16 index entries per call; after: 12.

-- Only the ledger invariant check (a full scan) and joins from calls (which use calls' primary key) read
-- entries by call; the debit and refund of a call are found through their idempotency keys
-- (`call:<id>`, `refund:<id>`).
DROP INDEX ledger_entries_call_idx;

-- Most calls carry no Idempotency-Key: keep the uniqueness (and the replay lookup, whose
-- `idempotency_key = $k` implies the predicate) without an entry for every call.
ALTER TABLE calls DROP CONSTRAINT calls_account_id_idempotency_key_key;
CREATE UNIQUE INDEX calls_idempotency_key_idx ON calls (account_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

-- One index for the pending calls, which are few (in flight only): the wallet's pending sum reads it by
-- account, the sweeper scans it whole for deadlines past (it holds only pending rows).
DROP INDEX calls_pending_idx;
DROP INDEX calls_pending_account_idx;
CREATE INDEX calls_pending_idx ON calls (account_id, deadline_at) WHERE status = 'pending';
