-- Billing: card top-ups (payments), processor webhook events applied once, coupons and their redemptions.

-- One row per checkout. Status moves pending -> completed | failed | expired, completed -> refunded; every
-- transition is a guarded UPDATE (WHERE status IN (...)), so replays and reordered events change nothing.
CREATE TABLE payments (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  processor text NOT NULL CHECK (processor IN ('local', 'stripe')),
  -- Checkout session id at the processor (cs_... for Stripe, cs_local_... for the local page).
  session_id text NOT NULL UNIQUE,
  -- Stripe PaymentIntent id, learnt from checkout.session.completed; charge.refunded is matched with it.
  processor_payment_ref text,
  amount_usd_cents integer NOT NULL CHECK (amount_usd_cents BETWEEN 500 AND 1000000),
  credits bigint NOT NULL CHECK (credits > 0),
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'completed', 'failed', 'expired', 'refunded')),
  checkout_url text NOT NULL,
  success_url text NOT NULL,
  cancel_url text NOT NULL,
  -- Cumulative amount the processor reports as refunded (it may arrive before the completion).
  refunded_usd_cents integer NOT NULL DEFAULT 0 CHECK (refunded_usd_cents >= 0),
  -- Credits taken back by payment_refund entries, and what could not be taken (already spent).
  refund_debited_credits bigint NOT NULL DEFAULT 0 CHECK (refund_debited_credits >= 0),
  refund_shortfall_credits bigint NOT NULL DEFAULT 0 CHECK (refund_shortfall_credits >= 0),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  closed_at timestamptz,
  refunded_at timestamptz
);
CREATE INDEX payments_account_idx ON payments (account_id, created_at DESC, id DESC);
CREATE INDEX payments_pending_idx ON payments (expires_at) WHERE status = 'pending';
CREATE INDEX payments_processor_ref_idx ON payments (processor_payment_ref) WHERE processor_payment_ref IS NOT NULL;

-- Every processor event we accepted (signature verified), keyed by its id: the second delivery of an event
-- finds its row and is acknowledged without effect. `object_ref` (PaymentIntent id) and
-- `refunded_usd_cents` let a refund that arrives before the completion be applied when it completes.
CREATE TABLE processor_events (
  processor text NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  payment_id text,
  object_ref text,
  refunded_usd_cents integer,
  outcome text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (processor, event_id)
);
CREATE INDEX processor_events_ref_idx ON processor_events (object_ref) WHERE object_ref IS NOT NULL;

-- Codes are case-insensitive: stored upper-case, unique.
CREATE TABLE coupons (
  id text PRIMARY KEY,
  code text NOT NULL UNIQUE CHECK (code = upper(code)),
  credits bigint NOT NULL CHECK (credits > 0),
  description text NOT NULL,
  expires_at timestamptz,
  max_redemptions integer CHECK (max_redemptions > 0),
  redemption_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (max_redemptions IS NULL OR redemption_count <= max_redemptions)
);

-- One redemption per (coupon, account): the primary key makes concurrent redemptions credit once.
CREATE TABLE coupon_redemptions (
  coupon_id text NOT NULL REFERENCES coupons (id),
  account_id text NOT NULL REFERENCES accounts (id),
  ledger_entry_id text NOT NULL,
  credits bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (coupon_id, account_id)
);
