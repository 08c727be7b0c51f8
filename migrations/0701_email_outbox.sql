-- Every e-mail is first a row here, written in the transaction of the event that causes it; a background
-- job delivers it (SMTP or .eml files). `dedupe_key` makes each notification at most once per event.
CREATE TABLE email_outbox (
  id text PRIMARY KEY,
  account_id text,
  kind text NOT NULL,
  dedupe_key text NOT NULL UNIQUE,
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX email_outbox_due_idx ON email_outbox (next_attempt_at) WHERE status = 'pending';
