-- Per-account notification state keyed (account, kind, scope):
--   * cooldowns: low_balance (scope = threshold in credits), unusual_activity (scope = API key id);
--     `last_sent_at` is compared with the service clock before a new alert is queued;
--   * digest periods: daily_summary (scope = YYYY-MM-DD), weekly_summary (scope = YYYY-Www); a row marks the
--     period as handled (mail queued, or nothing to report) so N instances handle it once.
CREATE TABLE notification_state (
  account_id text NOT NULL REFERENCES accounts (id),
  kind text NOT NULL,
  scope text NOT NULL,
  last_sent_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, kind, scope)
);

