// Money movements of paid calls. The debit is one SQL statement (balance, spending limits, daily counter,
// ledger entry and the pending call row, all or nothing), so a call costs one short transaction on the
// hot path; the refund is one statement too, keyed `refund:<callId>` so it can never apply twice.
import { type SQL, sql } from 'drizzle-orm';
import { type Database, type Executor, one } from '../../db/index.js';
import { utcDay } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { debitRefusal, keySpentOnDay, type RefusalKind, spentOnDay } from './debit-rule.js';
import { columnsOf, preparedRows } from './prepared.js';

export interface DebitForCallInput {
  callId: string;
  accountId: string;
  apiKeyId: string | null;
  providerId: string;
  endpointSlug: string;
  priceCredits: bigint;
  now: Date;
  deadlineAt: Date;
  idempotencyKey: string | null;
  requestHash: string | null;
  /**
   * Debit only if the balance stays above zero and above the low-balance threshold, i.e. when no
   * balance notification can follow: then the statement can run on its own (autocommit) without a
   * transaction around it. When this refuses, retry without it inside a transaction with the trigger.
   */
  onlyWithoutAlert?: boolean;
}

export interface DebitResult {
  balanceAfter: bigint;
  lowBalanceThreshold: bigint | null;
  /** The trust-tier counter after this call (for the `payments.counted` event). */
  successfulPayments: bigint;
}

/**
 * Debits the call price if the account is active, the per-call and daily limits allow it and the balance
 * covers it; writes the `debit` entry and the pending call row in the same statement. Returns undefined
 * when a condition failed (nothing was written); the caller then works out which one (explainRefusal).
 * A reused Idempotency-Key surfaces as a unique violation on calls (account_id, idempotency_key).
 */
function debitQuery(d: DebitForCallInput, accountLocked = false): SQL {
  const day = utcDay(d.now);
  const now = d.now.toISOString();
  const refusal = debitRefusal({
    account: sql`accounts`,
    price: sql`${d.priceCredits}::bigint`,
    upTo: sql`${d.priceCredits}::bigint`,
    day: sql`${day}::date`,
    apiKeyId: sql`${d.apiKeyId}`,
    onlyWithoutAlert: d.onlyWithoutAlert === true,
    ...(accountLocked
      ? { keyPolicy: { at: sql`${now}::timestamptz`, providerId: sql`${d.providerId}` } }
      : {}),
  });
  // The key's spend counters move with the account's, in this statement (only keys with a policy keep
  // them, and only this locked path debits such keys).
  const keySpend = accountLocked
    ? sql`, key_spend AS (
          UPDATE api_keys k SET spent_today_credits = ${keySpentOnDay(sql`${day}::date`)} + ${d.priceCredits},
                 spent_day = ${day}::date, spent_total_credits = k.spent_total_credits + ${d.priceCredits}
          FROM acct WHERE k.id = ${d.apiKeyId}::text AND k.has_policy RETURNING 1
        )`
    : sql``;
  return sql`WITH acct AS (
          UPDATE accounts SET
            balance_credits = balance_credits - ${d.priceCredits},
            total_spent_credits = total_spent_credits + ${d.priceCredits},
            -- Trust tier (docs/ratelimit.md): counted with the charge, taken back by a refund, so the
            -- settlement write never has to touch (and queue on) the account row.
            successful_payments = successful_payments + 1,
            daily_spent_credits = ${spentOnDay(sql`accounts`, sql`${day}::date`)} + ${d.priceCredits},
            daily_spent_day = ${day}::date
          WHERE id = ${d.accountId} AND ${refusal} IS NULL
          RETURNING balance_credits, low_balance_threshold_credits, successful_payments
        ), entry AS (
          INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, description,
                                      reference_type, reference_id, call_id, provider_id, endpoint_slug,
                                      idempotency_key, created_at)
          SELECT ${newId('txn')}, ${d.accountId}, 'debit', ${-d.priceCredits}, balance_credits,
                 ${`Call ${d.providerId}/${d.endpointSlug}`}, 'call', ${d.callId}, ${d.callId}, ${d.providerId},
                 ${d.endpointSlug}, ${`call:${d.callId}`}, ${now}
          FROM acct RETURNING 1
        ), logged AS (
          INSERT INTO calls (id, account_id, api_key_id, provider_id, endpoint_slug, price_credits,
                             idempotency_key, request_hash, deadline_at, created_at)
          SELECT ${d.callId}, ${d.accountId}, ${d.apiKeyId}, ${d.providerId}, ${d.endpointSlug}, ${d.priceCredits},
                 ${d.idempotencyKey}, ${d.requestHash}, ${d.deadlineAt.toISOString()}, ${now}
          FROM acct RETURNING 1
        )${keySpend}
        SELECT balance_credits, low_balance_threshold_credits, successful_payments FROM acct`;
}

export type DebitRow = {
  balance_credits: bigint;
  low_balance_threshold_credits: bigint | null;
  successful_payments: bigint;
};

/** One statement's debit rows (tagged with their request position) as results in request order. */
export function resultsInOrder(
  count: number,
  found: (DebitRow & { ord: number })[],
): (DebitResult | undefined)[] {
  const out: (DebitResult | undefined)[] = Array.from({ length: count }, () => undefined);
  for (const r of found) out[Number(r.ord)] = toResult(r);
  return out;
}

function toResult(row: DebitRow | undefined): DebitResult | undefined {
  if (!row) return undefined;
  // BigInt(): values computed inside a statement (e.g. from a VALUES list) may arrive as text.
  const threshold = row.low_balance_threshold_credits;
  return {
    balanceAfter: BigInt(row.balance_credits),
    lowBalanceThreshold: threshold === null ? null : BigInt(threshold),
    successfulPayments: BigInt(row.successful_payments),
  };
}

/**
 * The debit on the locked path: call it inside a transaction. A call through a key with a spending policy
 * first locks the account row, so the debit statement that follows reads the key's counters after every
 * earlier debit and refund of the account (all of which lock that row) committed: concurrent calls
 * through one key, on any number of instances, cannot overshoot its budgets. The lock order (account,
 * then key) is the refund's as well.
 */
export async function debitForCall(ex: Executor, d: DebitForCallInput): Promise<DebitResult | undefined> {
  if (d.apiKeyId !== null) {
    await ex.execute(
      sql`SELECT 1 FROM accounts WHERE id = ${d.accountId}
            AND EXISTS (SELECT 1 FROM api_keys WHERE id = ${d.apiKeyId} AND has_policy) FOR UPDATE`,
    );
  }
  return toResult(await one<DebitRow>(ex, debitQuery(d, true)));
}

/** debitForCall with onlyWithoutAlert, on its own (autocommit) as a prepared statement: the hot path. */
export async function debitForCallQuick(
  db: Database,
  d: DebitForCallInput,
): Promise<DebitResult | undefined> {
  const [row] = await preparedRows<DebitRow>(
    db,
    'svc_debit_for_call_quick',
    debitQuery({ ...d, onlyWithoutAlert: true }),
  );
  return toResult(row);
}

export type Refusal =
  | { kind: 'unknown_account' }
  /** The API key making the call was revoked (or is not the account's): 401 SVC-AUTH-001. */
  | { kind: 'revoked_key' }
  | { kind: 'inactive' }
  | { kind: 'per_call'; limitCredits: bigint; currentDailySpend: bigint }
  | { kind: 'daily'; limitCredits: bigint; currentDailySpend: bigint; day: string }
  | { kind: 'balance'; available: bigint }
  /** The key's policy: expired (401 SVC-AUTH-001), provider or category not allowed (403 SVC-AUTH-005). */
  | { kind: 'expired_key' }
  | { kind: 'key_not_allowed' }
  /** Over a budget of the key's policy: 402 SVC-CREDIT-002 with limitType key_*. */
  | {
      kind: 'key_per_call' | 'key_daily' | 'key_total';
      keyId: string;
      limitCredits: bigint;
      spentTodayCredits: bigint;
      spentTotalCredits: bigint;
    }
  /** Nothing blocks the debit now (a concurrent refund freed room): try again. `available` = balance. */
  | { kind: 'none'; available: bigint };

/**
 * After debitForCall refused, reads the account to say why, in the order of the request pipeline: key,
 * account status, then limits → balance.
 */
export async function explainRefusal(
  ex: Executor,
  accountId: string,
  priceCredits: bigint,
  now: Date,
  apiKeyId: string | null = null,
  providerId: string | null = null,
): Promise<Refusal> {
  const day = utcDay(now);
  const price = sql`${priceCredits}::bigint`;
  const keyPolicy = { at: sql`${now.toISOString()}::timestamptz`, providerId: sql`${providerId}` };
  const a = await one<{
    refusal: RefusalKind | null;
    balance_credits: bigint;
    daily_limit_credits: bigint | null;
    per_call_limit_credits: bigint | null;
    spent_today: bigint;
    key_daily: bigint | null;
    key_total: bigint | null;
    key_per_call: bigint | null;
    key_today: bigint | null;
    key_spent_total: bigint | null;
  }>(
    ex,
    sql`SELECT ${debitRefusal({ account: sql`accounts`, price, upTo: price, day: sql`${day}::date`, apiKeyId: sql`${apiKeyId}`, onlyWithoutAlert: false, keyPolicy })} AS refusal,
               accounts.balance_credits, accounts.daily_limit_credits, accounts.per_call_limit_credits,
               ${spentOnDay(sql`accounts`, sql`${day}::date`)} AS spent_today,
               k.daily_limit_credits AS key_daily, k.total_limit_credits AS key_total,
               k.per_call_max_credits AS key_per_call, ${keySpentOnDay(sql`${day}::date`)} AS key_today,
               k.spent_total_credits AS key_spent_total
        FROM accounts LEFT JOIN api_keys k ON k.id = ${apiKeyId}::text
        WHERE accounts.id = ${accountId}`,
  );
  if (!a) return { kind: 'unknown_account' };
  const spent = BigInt(a.spent_today);
  switch (a.refusal) {
    case 'revoked_key':
    case 'inactive':
    case 'expired_key':
    case 'key_not_allowed':
      return { kind: a.refusal };
    case 'key_per_call':
    case 'key_daily':
    case 'key_total': {
      const limit = { key_per_call: a.key_per_call, key_daily: a.key_daily, key_total: a.key_total }[
        a.refusal
      ];
      return {
        kind: a.refusal,
        keyId: apiKeyId ?? '',
        limitCredits: BigInt(limit ?? 0n),
        spentTodayCredits: BigInt(a.key_today ?? 0n),
        spentTotalCredits: BigInt(a.key_spent_total ?? 0n),
      };
    }
    case 'per_call':
      return {
        kind: 'per_call',
        limitCredits: BigInt(a.per_call_limit_credits ?? 0n),
        currentDailySpend: spent,
      };
    case 'daily':
      return {
        kind: 'daily',
        limitCredits: BigInt(a.daily_limit_credits ?? 0n),
        currentDailySpend: spent,
        day,
      };
    case 'balance':
      return { kind: 'balance', available: a.balance_credits };
  }
  return { kind: 'none', available: a.balance_credits };
}

export type CallOutcome = 'success' | 'client_error' | 'provider_error' | 'timeout';
export type RefundReason = 'provider_5xx' | 'timeout' | 'connection' | 'bad_response' | 'abandoned';

export interface CallResultRecord {
  callId: string;
  outcome: CallOutcome;
  providerStatus: number | null;
  latencyMs: number | null;
  finishedAt: Date;
  /** Stored only for calls with an Idempotency-Key (replays). */
  responseStatus?: number;
  responseBody?: string;
}

export interface RefundResult {
  accountId: string;
  providerId: string;
  endpointSlug: string;
  credits: bigint;
  balanceAfter: bigint;
  successfulPayments: bigint;
}

/**
 * Refunds a pending call in full and records its outcome, in one statement: the call row leaves
 * `pending` (only once: a settled or already-refunded call is left alone and undefined is returned),
 * the balance comes back, total spend drops, the daily counter drops when the call was made the same UTC
 * day, and the `refund` entry is written under `refund:<callId>` (unique, so never twice).
 */
export async function refundCall(
  ex: Executor,
  r: CallResultRecord & { outcome: 'provider_error' | 'timeout'; reason: RefundReason },
): Promise<RefundResult | undefined> {
  const finished = r.finishedAt.toISOString();
  const row = await one<{
    account_id: string;
    provider_id: string;
    endpoint_slug: string;
    price_credits: bigint;
    balance_credits: bigint;
    successful_payments: bigint;
  }>(
    ex,
    sql`WITH c AS (
          UPDATE calls SET status = ${r.outcome}, refunded = true, refund_reason = ${r.reason},
                 provider_status = ${r.providerStatus}, latency_ms = ${r.latencyMs}, finished_at = ${finished},
                 response_status = ${r.responseStatus ?? null}, response_body = ${r.responseBody ?? null}
          WHERE id = ${r.callId} AND status = 'pending'
          RETURNING id, account_id, api_key_id, provider_id, endpoint_slug, price_credits,
                    (created_at AT TIME ZONE 'utc')::date AS day
        ), acct AS (
          UPDATE accounts a SET
            balance_credits = a.balance_credits + c.price_credits,
            total_spent_credits = a.total_spent_credits - c.price_credits,
            successful_payments = a.successful_payments - 1,
            daily_spent_credits = CASE WHEN a.daily_spent_day = c.day
                                       THEN greatest(a.daily_spent_credits - c.price_credits, 0)
                                       ELSE a.daily_spent_credits END
          FROM c WHERE a.id = c.account_id
          RETURNING a.id, a.balance_credits, a.successful_payments
        ), entry AS (
          INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, description,
                                      reference_type, reference_id, call_id, provider_id, endpoint_slug,
                                      idempotency_key, created_at)
          SELECT ${newId('txn')}, c.account_id, 'refund', c.price_credits, acct.balance_credits,
                 ${`Refund (${r.reason})`}, 'call', c.id, c.id, c.provider_id, c.endpoint_slug,
                 'refund:' || c.id, ${finished}
          FROM c JOIN acct ON acct.id = c.account_id RETURNING 1
        ), key_back AS (
          -- The key's budget comes back with the account's. Joined to acct so the account row is locked
          -- first, the order of the locked debit path (debitForCall).
          UPDATE api_keys k SET
            spent_total_credits = greatest(k.spent_total_credits - c.price_credits, 0),
            spent_today_credits = CASE WHEN k.spent_day = c.day
                                       THEN greatest(k.spent_today_credits - c.price_credits, 0)
                                       ELSE k.spent_today_credits END
          FROM c JOIN acct ON acct.id = c.account_id
          WHERE k.id = c.api_key_id AND k.has_policy RETURNING 1
        )
        SELECT c.account_id, c.provider_id, c.endpoint_slug, c.price_credits, acct.balance_credits,
               acct.successful_payments
        FROM c JOIN acct ON acct.id = c.account_id`,
  );
  if (!row) return undefined;
  return {
    accountId: row.account_id,
    providerId: row.provider_id,
    endpointSlug: row.endpoint_slug,
    credits: row.price_credits,
    balanceAfter: row.balance_credits,
    successfulPayments: row.successful_payments,
  };
}

/**
 * Settles charged calls (2xx/4xx) in one statement: the outcome on the call rows still pending (a call
 * the sweeper refunded meanwhile is left alone). Only call rows are written, never an account row, so
 * settlements neither wait behind debits of a busy account nor deadlock with them. Fixed text with one
 * array per column: a named prepared statement on PostgreSQL whatever the batch size.
 * Returns how many were settled.
 *
 * No money moves here (the debit is already durable), so unless a record carries a response kept for
 * Idempotency-Key replays the commit does not wait for the WAL flush (synchronous_commit off for this
 * transaction only): if PostgreSQL itself crashed within that fraction of a second the calls would stay
 * pending and the sweeper would refund them, never charge twice.
 */
export async function settleChargedCalls(db: Database, records: CallResultRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const durable = records.some((r) => r.responseBody !== undefined);
  const column = columnsOf(records);
  const [row] = await preparedRows<{ settled: bigint }>(
    db,
    'svc_settle_charged_calls',
    sql`WITH settled AS (
          UPDATE calls c SET status = v.outcome, provider_status = v.provider_status, latency_ms = v.latency_ms,
                 finished_at = v.finished_at, response_status = v.response_status, response_body = v.response_body
          FROM unnest(${column((r) => r.callId)}::text[], ${column((r) => r.outcome)}::text[],
                      ${column((r) => r.providerStatus)}::int[], ${column((r) => r.latencyMs)}::int[],
                      ${column((r) => r.finishedAt.toISOString())}::timestamptz[],
                      ${column((r) => r.responseStatus ?? null)}::int[], ${column((r) => r.responseBody ?? null)}::text[])
               AS v (id, outcome, provider_status, latency_ms, finished_at, response_status, response_body)
          WHERE c.id = v.id AND c.status = 'pending'
          RETURNING c.id
        )
        SELECT count(*) AS settled,
               set_config('synchronous_commit', ${durable ? 'on' : 'off'}, true) AS commit_mode
        FROM settled`,
  );
  return Number(row?.settled ?? 0);
}

/** A call paid by its own USDC authorization (x402), written once with its final outcome. */
export interface WalletPaidCallRecord {
  callId: string;
  paymentId: string;
  providerId: string;
  endpointSlug: string;
  priceCredits: bigint;
  outcome: 'success' | 'client_error' | 'provider_error' | 'timeout';
  providerStatus: number | null;
  latencyMs: number;
  refundReason: string | null;
  createdAt: Date;
  finishedAt: Date;
}

/**
 * The call row of an x402 call, written once with its final outcome (quality metrics, usage and provider
 * earnings read the calls table). No account and no ledger entry: the payer is a wallet, found through
 * x402_payment_id, and the money moved on-chain.
 */
export async function recordWalletPaidCall(ex: Executor, c: WalletPaidCallRecord): Promise<void> {
  await ex.execute(
    sql`INSERT INTO calls (id, account_id, provider_id, endpoint_slug, price_credits, status, refunded,
                           provider_status, latency_ms, refund_reason, deadline_at, created_at, finished_at,
                           x402_payment_id)
        VALUES (${c.callId}, NULL, ${c.providerId}, ${c.endpointSlug}, ${c.priceCredits.toString()}, ${c.outcome},
                false, ${c.providerStatus}, ${c.latencyMs}, ${c.refundReason}, ${c.finishedAt.toISOString()},
                ${c.createdAt.toISOString()}, ${c.finishedAt.toISOString()}, ${c.paymentId})`,
  );
}
