-- The call log of paid executions: one row per call, created pending in the debit transaction and
-- settled with its outcome. Billing usage/export and quality metrics read it; the sweeper refunds calls
-- left pending past their deadline (crashed instance). No foreign key to providers: history outlives them.
CREATE TABLE calls (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  api_key_id text,
  provider_id text NOT NULL,
  endpoint_slug text NOT NULL,
  price_credits bigint NOT NULL CHECK (price_credits > 0),
  -- pending until settled; outcome values as in the CSV export (DESIGN.md section 7).
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'success', 'client_error', 'provider_error', 'timeout')),
  refunded boolean NOT NULL DEFAULT false,
  provider_status integer,
  latency_ms integer,
  idempotency_key text,
  request_hash text,
  response_status integer,
  response_body text,
  deadline_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  UNIQUE (account_id, idempotency_key)
);
CREATE INDEX calls_account_time_idx ON calls (account_id, created_at);
CREATE INDEX calls_pending_idx ON calls (deadline_at) WHERE status = 'pending';
CREATE INDEX calls_endpoint_time_idx ON calls (provider_id, endpoint_slug, created_at);
