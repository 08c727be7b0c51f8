-- Core money and identity tables. Credits are bigint (1 credit = 0.000001 USDC) everywhere.
-- Migration numbering by domain: 00xx core, 01xx catalog, 02xx discovery, 03xx auth, 04xx execution,
-- 05xx billing, 06xx rate limits, 07xx notifications.

CREATE TABLE accounts (
  id text PRIMARY KEY,
  email text UNIQUE,
  name text,
  wallet_address text UNIQUE,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'closed')),
  status_reason text,
  status_changed_at timestamptz,
  balance_credits bigint NOT NULL DEFAULT 0 CHECK (balance_credits >= 0),
  total_deposited_credits bigint NOT NULL DEFAULT 0,
  total_spent_credits bigint NOT NULL DEFAULT 0,
  -- Spend in the UTC day `daily_spent_day`; a debit on a later day starts the counter afresh.
  daily_spent_credits bigint NOT NULL DEFAULT 0,
  daily_spent_day date NOT NULL DEFAULT ((now() AT TIME ZONE 'utc')::date),
  daily_limit_credits bigint CHECK (daily_limit_credits > 0),
  per_call_limit_credits bigint CHECK (per_call_limit_credits > 0),
  low_balance_threshold_credits bigint CHECK (low_balance_threshold_credits >= 0),
  email_prefs jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Trust-tier counter: settled paid calls + confirmed deposits (DESIGN.md section 6).
  successful_payments bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (email IS NULL OR email = lower(email)),
  CHECK (wallet_address IS NULL OR wallet_address = lower(wallet_address))
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  prefix text NOT NULL,
  -- hex SHA-256 of the full key; the key itself is never stored.
  key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id, created_at);

-- Append-only. Every balance change is one row, written in the same transaction as the balance.
CREATE TABLE ledger_entries (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts (id),
  type text NOT NULL CHECK (type IN ('deposit', 'debit', 'refund', 'admin_credit', 'coupon_credit', 'payment_refund')),
  amount_credits bigint NOT NULL CHECK (amount_credits <> 0),
  balance_after bigint NOT NULL CHECK (balance_after >= 0),
  description text NOT NULL DEFAULT '',
  reference_type text,
  reference_id text,
  call_id text,
  provider_id text,
  endpoint_slug text,
  tx_hash text,
  -- Natural key of the write that produced the entry (call id, payment id, coupon+account, ...).
  idempotency_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, seq);
CREATE INDEX ledger_entries_account_time_idx ON ledger_entries (account_id, created_at);
CREATE INDEX ledger_entries_call_idx ON ledger_entries (call_id) WHERE call_id IS NOT NULL;

CREATE TABLE providers (
  id text PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  category text NOT NULL,
  website text,
  base_url text NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  -- AES-256-GCM ciphertext of the provider secret (needed in clear to sign forwarded calls).
  secret_ciphertext text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE endpoints (
  provider_id text NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  slug text NOT NULL,
  method text NOT NULL,
  path text,
  description text NOT NULL DEFAULT '',
  tags text[] NOT NULL DEFAULT '{}',
  parameters jsonb NOT NULL DEFAULT '{}'::jsonb,
  response_schema jsonb,
  price_credits bigint NOT NULL CHECK (price_credits > 0),
  timeout_ms integer NOT NULL DEFAULT 10000 CHECK (timeout_ms > 0),
  PRIMARY KEY (provider_id, slug)
);
