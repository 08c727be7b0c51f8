// The debit rule, in one place: may this call's price be taken from this account now, and if not, why?
// Every debit statement (single, batched for one account, grouped across accounts) admits a call exactly
// when `debitRefusal(...)` is NULL, and the explainer of a refusal (explainRefusal) reads the same
// expression, so the paths cannot drift apart. The checks run in the order of the request pipeline: the
// API key, the account's status, the per-call limit, the daily window (UTC day), the balance; a debit
// taken on the hot path without a transaction also refuses when a balance alert would follow.
// New conditions on a debit belong here, as one more WHEN. Per-key spending policies (expiry, allow-lists,
// per-call, daily and total budgets of the key) are such WHENs; see KeyPolicyTerms for when they apply.
import { type SQL, sql } from 'drizzle-orm';

export type RefusalKind =
  | 'revoked_key'
  | 'key_policy_unchecked'
  | 'expired_key'
  | 'key_not_allowed'
  | 'inactive'
  | 'per_call'
  | 'key_per_call'
  | 'daily'
  | 'key_daily'
  | 'key_total'
  | 'balance'
  | 'would_alert';

/**
 * What a statement needs to judge a key's spending policy (docs/billing.md). Only a statement that
 * runs after its transaction locked the account row (debitForCall) may pass it: its snapshot is then taken
 * after every earlier debit and refund of the account committed, so the key's counters it reads are
 * current. Statements without it (the autocommit, batched and grouped debits) refuse a call through a key
 * with a policy as `key_policy_unchecked`, and the caller retries it on the locked path.
 */
export interface KeyPolicyTerms {
  /** The clock reading of the call (timestamptz): a key expires to the second. */
  at: SQL;
  /** The provider called (text), for the allow-lists. */
  providerId: SQL;
}

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
  /** Judge the key's policy (see KeyPolicyTerms); absent: refuse calls through a key with a policy. */
  keyPolicy?: KeyPolicyTerms;
}

/** The key's spend in the daily window of `day` (k = an api_keys row). */
export function keySpentOnDay(day: SQL): SQL {
  return sql`(CASE WHEN k.spent_day = ${day} THEN k.spent_today_credits ELSE 0 END)`;
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
  // The call's key has a policy and it says `cond` (k = the key's row).
  const keyWith = (cond: SQL) =>
    sql`EXISTS (SELECT 1 FROM api_keys k WHERE k.id = ${t.apiKeyId}::text AND k.has_policy AND (${cond}))`;
  const p = t.keyPolicy;
  const keyAccess = p
    ? sql`WHEN ${keyWith(sql`k.expires_at <= ${p.at}`)} THEN 'expired_key'
          WHEN ${keyWith(sql`(${p.providerId}::text = ANY (k.allowed_providers)) IS NOT TRUE AND k.allowed_providers IS NOT NULL
                   OR ((SELECT pr.category FROM providers pr WHERE pr.id = ${p.providerId}::text) = ANY (k.allowed_categories))
                        IS NOT TRUE AND k.allowed_categories IS NOT NULL`)} THEN 'key_not_allowed'`
    : sql`WHEN ${keyWith(sql`true`)} THEN 'key_policy_unchecked'`;
  const keyPerCall = p
    ? sql`WHEN ${keyWith(sql`k.per_call_max_credits < ${t.price}`)} THEN 'key_per_call'`
    : sql``;
  const keyBudgets = p
    ? sql`WHEN ${keyWith(sql`k.daily_limit_credits < ${keySpentOnDay(t.day)} + ${t.upTo}`)} THEN 'key_daily'
          WHEN ${keyWith(sql`k.total_limit_credits < k.spent_total_credits + ${t.upTo}`)} THEN 'key_total'`
    : sql``;
  // A NULL limit compares as NULL, so its WHEN never fires: no limit set, nothing refused.
  return sql`(CASE
      -- The key is checked atomically with the debit: the auth hook may have taken its key → account
      -- mapping from a per-app cache (docs/auth.md).
      WHEN ${t.apiKeyId}::text IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM api_keys k
             WHERE k.id = ${t.apiKeyId}::text AND k.account_id = ${a}.id AND k.revoked_at IS NULL) THEN 'revoked_key'
      ${keyAccess}
      WHEN ${a}.status <> 'active' THEN 'inactive'
      WHEN ${a}.per_call_limit_credits < ${t.price} THEN 'per_call'
      ${keyPerCall}
      WHEN ${a}.daily_limit_credits < ${spentOnDay(a, t.day)} + ${t.upTo} THEN 'daily'
      ${keyBudgets}
      WHEN ${a}.balance_credits < ${t.upTo} THEN 'balance'
      ${alert}
    END)`;
}
