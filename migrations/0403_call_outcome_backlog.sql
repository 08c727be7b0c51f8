-- Execution: outcomes of answered calls that the group write could not record on `calls` (docs/execution.md,
-- "When the outcome write fails"). The provider answered and the customer was charged, so the sweeper
-- records these outcomes instead of refunding the calls as abandoned; a row goes once its call has left
-- `pending`. Written by the settle queue only after the outcome write itself failed.
CREATE TABLE call_outcome_backlog (
  call_id text PRIMARY KEY,
  outcome text NOT NULL,
  provider_status integer,
  latency_ms integer,
  finished_at timestamptz NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now()
);
