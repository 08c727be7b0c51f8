-- Execution (issue 4): why a call was refunded, and what the wallet balance view needs.
-- refund_reason: provider_5xx | timeout | connection | bad_response | abandoned (swept after a crash).
-- Abandoned calls are refunded but left out of provider quality metrics: the fault was ours.
ALTER TABLE calls ADD COLUMN refund_reason text;
-- pending_settlements_usdc sums the pending calls of one account.
CREATE INDEX calls_pending_account_idx ON calls (account_id) WHERE status = 'pending';
