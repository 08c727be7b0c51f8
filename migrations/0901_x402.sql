-- x402 pay-per-call (DESIGN.md section 12, docs/x402.md).
-- One row per signed EIP-3009 authorization that bought (or is buying) a call. The authorization's nonce
-- is unique per (chain, token, payer) on-chain; the same key here is what makes one signed payment buy one
-- call, even replayed concurrently or on two instances: the INSERT of the reservation is the lock.
--   reserved: the call is running (a crash leaves it; the sweep releases it after its deadline)
--   settled:  paid on-chain; response_* is what a replay of the same payment is answered with
-- A call that was not charged (provider 5xx/timeout) or whose settlement failed deletes its row, so the
-- unused authorization may be presented again.
CREATE TABLE x402_payments (
  id text PRIMARY KEY,
  chain_id integer NOT NULL,
  asset text NOT NULL,
  payer text NOT NULL,
  nonce text NOT NULL,
  -- A replay is answered with the stored response only when it presents this very signature.
  signature text NOT NULL,
  pay_to text NOT NULL,
  amount_credits bigint NOT NULL CHECK (amount_credits > 0),
  provider_id text NOT NULL,
  endpoint_slug text NOT NULL,
  call_id text NOT NULL,
  status text NOT NULL DEFAULT 'reserved' CHECK (status IN ('reserved', 'settled')),
  tx_hash text,
  response_status integer,
  response_body text,
  payment_response text,
  deadline_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  UNIQUE (chain_id, asset, payer, nonce)
);
CREATE UNIQUE INDEX x402_payments_tx_idx ON x402_payments (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE INDEX x402_payments_payer_idx ON x402_payments (payer) WHERE status = 'settled';
CREATE INDEX x402_payments_reserved_idx ON x402_payments (deadline_at) WHERE status = 'reserved';

-- x402 calls are calls (quality metrics, usage, provider earnings) but have no account: the payer is a
-- wallet. Their call rows are written once, with their final outcome (never 'pending', so the execution
-- sweeper, which refunds pending calls to their account, never sees them). A settled x402 call is the row
-- with x402_payment_id set and status success/client_error; earnings read it with x402_payments.status.
ALTER TABLE calls ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE calls ADD COLUMN x402_payment_id text;
ALTER TABLE calls ADD CONSTRAINT calls_payer_present CHECK (account_id IS NOT NULL OR x402_payment_id IS NOT NULL);
