-- Spending policies per API key (DESIGN.md section 17, docs/keys.md). A key with `has_policy` is an
-- agent key: its limits, allow-lists and expiry are checked inside the debit statement
-- (src/modules/ledger/debit-rule.ts), and it may not manage keys, limits or alerts. A NULL limit or list
-- means "no restriction of that kind"; an empty policy `{}` still makes an agent key.
ALTER TABLE api_keys
  ADD COLUMN has_policy boolean NOT NULL DEFAULT false,
  ADD COLUMN daily_limit_credits bigint CHECK (daily_limit_credits >= 0),
  ADD COLUMN total_limit_credits bigint CHECK (total_limit_credits >= 0),
  ADD COLUMN per_call_max_credits bigint CHECK (per_call_max_credits >= 0),
  ADD COLUMN allowed_providers text[],
  ADD COLUMN allowed_categories text[],
  ADD COLUMN expires_at timestamptz,
  -- Spend through the key, net of refunds: in the UTC day `spent_day`, and in total. Kept by the debit and
  -- refund statements for keys with a policy (keys without one keep the batched fast path, which never
  -- touches this row); set from the call log when a policy is put on a key.
  ADD COLUMN spent_today_credits bigint NOT NULL DEFAULT 0,
  ADD COLUMN spent_day date NOT NULL DEFAULT ((now() AT TIME ZONE 'utc')::date),
  ADD COLUMN spent_total_credits bigint NOT NULL DEFAULT 0;

