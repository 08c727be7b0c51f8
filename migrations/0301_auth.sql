-- Sign-in state of the auth module (DESIGN.md section 3): e-mail login codes, wallet sign-in nonces,
-- external identity-provider subjects, and the history of account status changes.

-- A 6-digit code is stored only as HMAC-SHA256(session secret, id:code). At most one live code per e-mail:
-- issuing a new one supersedes the older ones.
CREATE TABLE auth_login_codes (
  id text PRIMARY KEY,
  email text NOT NULL CHECK (email = lower(email)),
  code_hash text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  superseded_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX auth_login_codes_live_idx ON auth_login_codes (email)
  WHERE consumed_at IS NULL AND superseded_at IS NULL;
CREATE INDEX auth_login_codes_expiry_idx ON auth_login_codes (expires_at);

-- EIP-4361 challenges: the nonce is bound to one wallet and to the exact message that must be signed.
CREATE TABLE auth_wallet_nonces (
  nonce text PRIMARY KEY,
  wallet_address text NOT NULL CHECK (wallet_address = lower(wallet_address)),
  message text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_wallet_nonces_expiry_idx ON auth_wallet_nonces (expires_at);

-- Accounts reached through an external identity provider, by (issuer, subject) of its JWTs.
CREATE TABLE auth_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  account_id text NOT NULL REFERENCES accounts (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX auth_identities_account_idx ON auth_identities (account_id);

-- Every suspension and reinstatement, with its reason (accounts.status_reason holds only the latest).
CREATE TABLE account_status_events (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  status text NOT NULL CHECK (status IN ('active', 'suspended', 'closed')),
  reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_status_events_account_idx ON account_status_events (account_id, id);
