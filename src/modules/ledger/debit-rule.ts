// The debit rule, in one place: may this call's price be taken from this account now, and if not, why?
// Every debit statement (single, batched for one account, grouped across accounts) admits a call exactly
// when `debitRefusal(...)` is NULL, and the explainer of a refusal (explainRefusal) reads the same
// expression, so the paths cannot drift apart. The checks run in the order of the request pipeline: the
// API key, the account's status, the per-call limit, the daily window (UTC day), the balance; a debit
// taken on the hot path without a transaction also refuses when a balance alert would follow.
// New conditions on a debit (e.g. per-key spending policies) belong here, as one more WHEN.
import { type SQL, sql } from 'drizzle-orm';

export type RefusalKind = 'revoked_key' | 'inactive' | 'per_call' | 'daily' | 'balance' | 'would_alert';

export interface DebitTerms {
  /** The accounts row judged: the table name or an alias carrying the accounts columns (incl. `id`). */
  account: SQL;
  /** This call's price. */
  price: SQL;
  /**
   * What the account pays in this statement up to and including this call: the price for a lone call,
   * the running total of the same UTC day for a batch of one account's calls.
   */
  upTo: SQL;
  /** The call's UTC day, a `date`. */
  day: SQL;
  /** The API key making the call (text), or NULL for calls not made with a key. */
  apiKeyId: SQL;
  /** Also refuse a debit after which a balance alert would be due (zero reached, threshold crossed). */
  onlyWithoutAlert: boolean;
}

/** The account's spend in the daily window of `day` (the counter restarts on a new UTC day). */
export function spentOnDay(account: SQL, day: SQL): SQL {
  return sql`(CASE WHEN ${account}.daily_spent_day = ${day} THEN ${account}.daily_spent_credits ELSE 0 END)`;
}

/** A text expression: NULL when the debit is admitted, else the RefusalKind that blocks it. */
export function debitRefusal(t: DebitTerms): SQL {
  const a = t.account;
  const alert = t.onlyWithoutAlert
    ? sql`WHEN ${a}.balance_credits <= ${t.upTo}
            OR ${a}.balance_credits - ${t.upTo} < ${a}.low_balance_threshold_credits THEN 'would_alert'`
    : sql``;
  // A NULL limit compares as NULL, so its WHEN never fires: no limit set, nothing refused.
  return sql`(CASE
      -- The key is checked atomically with the debit: the auth hook may have taken its key → account
      -- mapping from a per-app cache (docs/auth.md).
      WHEN ${t.apiKeyId}::text IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM api_keys k
             WHERE k.id = ${t.apiKeyId}::text AND k.account_id = ${a}.id AND k.revoked_at IS NULL) THEN 'revoked_key'
      WHEN ${a}.status <> 'active' THEN 'inactive'
      WHEN ${a}.per_call_limit_credits < ${t.price} THEN 'per_call'
      WHEN ${a}.daily_limit_credits < ${spentOnDay(a, t.day)} + ${t.upTo} THEN 'daily'
      WHEN ${a}.balance_credits < ${t.upTo} THEN 'balance'
      ${alert}
    END)`;
}
