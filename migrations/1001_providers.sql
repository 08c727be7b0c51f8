-- Providers as a two-sided market (docs/providers.md): who owns a listing, whether it is live, and where
-- its owner is paid. Shared by self-service listings and the daily settlement.

-- The account that owns a listing: its earnings are paid to this account's payout wallet, and its own
-- calls to the listing earn nothing. NULL for operator listings with no owner (they earn nothing either).
ALTER TABLE providers ADD COLUMN owner_account_id text REFERENCES accounts (id);
CREATE INDEX providers_owner_idx ON providers (owner_account_id) WHERE owner_account_id IS NOT NULL;

-- 'pending_review': a self-service listing outside devnet, not discoverable nor callable until an
-- operator approves it.
ALTER TABLE providers ADD COLUMN status text NOT NULL DEFAULT 'active'
  CHECK (status IN ('active', 'pending_review'));

-- One payout wallet per account; it must be one of the account's linked wallets when set.
CREATE TABLE payout_wallets (
  account_id text PRIMARY KEY REFERENCES accounts (id),
  wallet_address text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
