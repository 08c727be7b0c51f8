-- Provider earnings and the daily on-chain settlement (docs/payouts.md).

-- The settlement that paid (or carried over) a call: set once, so no call is ever paid twice. NULL on
-- calls not yet settled; the partial index is what the settlement and the earnings view scan.
ALTER TABLE calls ADD COLUMN settlement_id text;
CREATE INDEX calls_unsettled_earnings_idx ON calls (provider_id, finished_at)
  WHERE settlement_id IS NULL AND status IN ('success', 'client_error') AND NOT refunded;
CREATE INDEX calls_settlement_idx ON calls (settlement_id) WHERE settlement_id IS NOT NULL;

-- One row per provider and settlement run with earnings:
--   carried_over: net (with earlier carried-over rows) below the minimum payout; no transfer; a later
--                 payout includes its net (paid_by_settlement_id names that payout)
--   pending:      to be paid (no payout wallet yet, no platform key, or the chain was unreachable)
--   submitted:    the USDC transfer is signed, stored and broadcast (platform_transactions, purpose
--                 'payout', reference = this id)
--   confirmed:    mined successfully; shows in the owner's wallet history at history_seq
--   failed:       refused by the node (e.g. the hot wallet lacks USDC) or reverted on-chain
CREATE TABLE settlements (
  id text PRIMARY KEY,
  provider_id text NOT NULL,
  -- The provider's owner when the settlement was made: the account paid and the one that sees it.
  account_id text NOT NULL REFERENCES accounts (id),
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  total_calls integer NOT NULL CHECK (total_calls >= 0),
  gross_credits bigint NOT NULL CHECK (gross_credits >= 0),
  fee_bps integer NOT NULL,
  fee_credits bigint NOT NULL CHECK (fee_credits >= 0),
  net_credits bigint NOT NULL CHECK (net_credits >= 0),
  -- Net of the earlier carried-over rows this payout includes; amount = net + carried_in.
  carried_in_credits bigint NOT NULL DEFAULT 0 CHECK (carried_in_credits >= 0),
  amount_credits bigint NOT NULL CHECK (amount_credits >= 0),
  status text NOT NULL
    CHECK (status IN ('pending', 'submitted', 'confirmed', 'failed', 'carried_over')),
  paid_by_settlement_id text REFERENCES settlements (id),
  -- Fixed at the first payment attempt: a later change of payout wallet never splits one payout.
  wallet_address text,
  platform_tx_id text,
  tx_hash text,
  block_number bigint,
  failure_reason text,
  -- Payment attempts after a failure (operator retry): the platform transaction's reference is the id, then
  -- `<id>:<attempt>`; a retry is allowed only once the previous transfer is known not to have paid.
  attempt integer NOT NULL DEFAULT 0,
  -- Position in the owner's wallet history (a value of the ledger's seq sequence) once confirmed.
  history_seq bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  confirmed_at timestamptz
);
CREATE INDEX settlements_account_idx ON settlements (account_id, created_at, id);
CREATE INDEX settlements_status_idx ON settlements (status, created_at);
CREATE INDEX settlements_carried_idx ON settlements (provider_id)
  WHERE status = 'carried_over' AND paid_by_settlement_id IS NULL;
CREATE INDEX settlements_history_idx ON settlements (account_id, history_seq) WHERE history_seq IS NOT NULL;

-- The daily schedule, shared by every instance: the run of a UTC date is claimed by inserting its row
-- (unique), with a lease so a crashed instance's run is taken over by another, never run twice at once.
CREATE TABLE settlement_runs (
  run_date date PRIMARY KEY,
  until timestamptz NOT NULL,
  lease_until timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 1,
  settlements integer,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
