-- On-chain USDC (DESIGN.md sections 10 and 11): linked wallets, every transfer to the platform wallet the
-- service has accounted for (deposits and its own x402 settlements), deposits, the watcher's cursor, and
-- the platform key's nonce allocator with the transactions it signed.

-- A wallet belongs to at most one account (the primary key). Wallet sign-ins are links too.
CREATE TABLE wallet_links (
  wallet_address text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  linked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wallet_links_account ON wallet_links (account_id, linked_at);
INSERT INTO wallet_links (wallet_address, account_id, linked_at)
  SELECT wallet_address, id, created_at FROM accounts WHERE wallet_address IS NOT NULL
  ON CONFLICT DO NOTHING;

-- One row per Transfer log the service has accounted for: the unique key that makes a deposit (or an x402
-- settlement) count exactly once, whatever the number of submissions, instances or watcher passes.
CREATE TABLE chain_transfers (
  chain_id integer NOT NULL,
  tx_hash text NOT NULL,
  log_index integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('deposit', 'x402')),
  from_address text NOT NULL,
  to_address text NOT NULL,
  amount_credits bigint NOT NULL CHECK (amount_credits >= 0),
  block_number bigint NOT NULL,
  account_id text REFERENCES accounts(id),
  deposit_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, tx_hash, log_index)
);
CREATE INDEX chain_transfers_block ON chain_transfers (chain_id, block_number);

CREATE TABLE deposits (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  chain_id integer NOT NULL,
  tx_hash text NOT NULL,
  amount_credits bigint NOT NULL CHECK (amount_credits > 0),
  block_number bigint NOT NULL,
  source text NOT NULL CHECK (source IN ('submission', 'watcher')),
  ledger_entry_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain_id, tx_hash, account_id)
);
CREATE INDEX deposits_account ON deposits (account_id, created_at);

-- Background cursors (the deposit watcher's last fully scanned block per chain).
CREATE TABLE chain_cursors (
  name text NOT NULL,
  chain_id integer NOT NULL,
  block_number bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, chain_id)
);

-- The one nonce allocator of the platform key: the row is locked (FOR UPDATE) while a nonce is taken.
CREATE TABLE platform_nonces (
  chain_id integer NOT NULL,
  address text NOT NULL,
  next_nonce bigint NOT NULL,
  PRIMARY KEY (chain_id, address)
);

-- Every transaction the platform key signed, stored BEFORE it is broadcast, so a crash can only lead to
-- a rebroadcast of the same signed bytes, never to a second payment. (purpose, reference) is the caller's
-- idempotency key (e.g. payout id, x402 authorization nonce).
CREATE TABLE platform_transactions (
  id text PRIMARY KEY,
  chain_id integer NOT NULL,
  from_address text NOT NULL,
  nonce bigint NOT NULL,
  purpose text NOT NULL,
  reference text NOT NULL,
  to_address text NOT NULL,
  data text NOT NULL,
  value_wei numeric(78, 0) NOT NULL DEFAULT 0,
  gas bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'confirmed', 'reverted', 'dropped')),
  tx_hash text NOT NULL,
  raw_tx text NOT NULL,
  max_fee_per_gas numeric(78, 0) NOT NULL,
  max_priority_fee_per_gas numeric(78, 0) NOT NULL,
  block_number bigint,
  broadcast_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (purpose, reference),
  UNIQUE (chain_id, from_address, nonce)
);
CREATE INDEX platform_transactions_pending ON platform_transactions (status, updated_at) WHERE status = 'pending';

-- Each signed version of a platform transaction (a stuck one is re-signed with the same nonce and
-- higher fees): whichever of them is mined settles the row.
CREATE TABLE platform_transaction_attempts (
  tx_hash text PRIMARY KEY,
  transaction_id text NOT NULL REFERENCES platform_transactions(id),
  raw_tx text NOT NULL,
  max_fee_per_gas numeric(78, 0) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX platform_transaction_attempts_tx ON platform_transaction_attempts (transaction_id);
