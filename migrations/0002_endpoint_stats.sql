-- Quality metrics per endpoint (SPEC.md 2.4, DESIGN.md section 4), maintained by the execution module
-- from its call log and read by the catalogue and discovery. An endpoint without a row has no calls yet.
CREATE TABLE endpoint_stats (
  provider_id text NOT NULL,
  endpoint_slug text NOT NULL,
  uptime_pct double precision NOT NULL DEFAULT 100,
  avg_latency_ms double precision NOT NULL DEFAULT 0,
  error_rate_pct double precision NOT NULL DEFAULT 0,
  total_calls bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider_id, endpoint_slug)
);
