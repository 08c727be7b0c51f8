// Several debits of ONE account in one statement. A busy account's row lock is held through each commit's
// WAL flush, so one debit per statement caps an account at one flush per call; calls that queue up behind
// each other are debited together instead (see execution/debit-coalescer.ts).
//
// Same rules as debitForCall with onlyWithoutAlert, applied in request order: the longest prefix of the
// requests whose running total keeps the account active, above zero and its low-balance threshold, within
// the per-call and daily limits is debited; each gets its own ledger entry (balance_after chained in order)
// and pending call row; a request whose API key is revoked ends the prefix. Requests after the prefix are
// not debited (the caller retries them one by one, which also explains a refusal). Requests with an Idempotency-Key never come here.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import { newId } from '../../lib/ids.js';
import { type DebitForCallInput, type DebitResult, resultsInOrder } from './calls.js';
import { columnsOf, preparedRows } from './prepared.js';

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Results in request order; undefined = not debited (retry it alone). All inputs share accountId.
 * Fixed text with one array per column, so PostgreSQL plans it once per connection whatever the batch size.
 */
export async function debitBatchForAccount(
  db: Database,
  accountId: string,
  inputs: DebitForCallInput[],
  now: Date,
): Promise<(DebitResult | undefined)[]> {
  const day = utcDay(now);
  const nowIso = now.toISOString();
  const column = columnsOf(inputs);
  const found = await preparedRows<{
    ord: number;
    balance_after: bigint;
    low_balance_threshold_credits: bigint | null;
    successful_payments: bigint;
  }>(
    db,
    'svc_debit_batch_for_account',
    sql`WITH req AS (
          SELECT (n - 1)::int AS ord, call_id, txn_id, price, provider_id, endpoint_slug, api_key_id, deadline_at,
                 created_at
          FROM unnest(${column((d) => d.callId)}::text[], ${column(() => newId('txn'))}::text[],
                      ${column((d) => d.priceCredits)}::bigint[], ${column((d) => d.providerId)}::text[],
                      ${column((d) => d.endpointSlug)}::text[], ${column((d) => d.apiKeyId)}::text[],
                      ${column((d) => d.deadlineAt.toISOString())}::timestamptz[],
                      ${column((d) => d.now.toISOString())}::timestamptz[])
               WITH ORDINALITY AS u (call_id, txn_id, price, provider_id, endpoint_slug, api_key_id, deadline_at,
                                     created_at, n)
        ), cur AS (
          SELECT balance_credits, status, per_call_limit_credits, daily_limit_credits,
                 low_balance_threshold_credits, successful_payments,
                 CASE WHEN daily_spent_day = ${day}::date THEN daily_spent_credits ELSE 0 END AS spent
          FROM accounts WHERE id = ${accountId} FOR UPDATE
        ), running AS (
          SELECT r.*, sum(r.price) OVER (ORDER BY r.ord) AS cum FROM req r
        ), checked AS (
          SELECT running.*, cur.balance_credits - running.cum AS balance_after,
                 bool_and(cur.status = 'active'
                          -- each call's API key still valid (see debitForCall)
                          AND (running.api_key_id IS NULL OR EXISTS (
                                SELECT 1 FROM api_keys k WHERE k.id = running.api_key_id
                                  AND k.account_id = ${accountId} AND k.revoked_at IS NULL))
                          AND running.cum < cur.balance_credits
                          AND (cur.low_balance_threshold_credits IS NULL
                               OR cur.balance_credits - running.cum >= cur.low_balance_threshold_credits)
                          AND (cur.per_call_limit_credits IS NULL OR running.price <= cur.per_call_limit_credits)
                          AND (cur.daily_limit_credits IS NULL OR cur.spent + running.cum <= cur.daily_limit_credits))
                   OVER (ORDER BY running.ord) AS in_prefix
          FROM running, cur
        ), ok AS (
          SELECT * FROM checked WHERE in_prefix
        ), totals AS (
          SELECT sum(price) AS total, count(*) AS n FROM ok
        ), acct AS (
          UPDATE accounts SET
            balance_credits = balance_credits - t.total,
            total_spent_credits = total_spent_credits + t.total,
            successful_payments = successful_payments + t.n,
            daily_spent_credits = CASE WHEN daily_spent_day = ${day}::date
                                       THEN daily_spent_credits + t.total ELSE t.total END,
            daily_spent_day = ${day}::date
          FROM totals t WHERE id = ${accountId} AND t.n > 0
          RETURNING successful_payments
        ), entry AS (
          INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, description,
                                      reference_type, reference_id, call_id, provider_id, endpoint_slug,
                                      idempotency_key, created_at)
          SELECT txn_id, ${accountId}, 'debit', -price, balance_after, 'Call ' || provider_id || '/' || endpoint_slug,
                 'call', call_id, call_id, provider_id, endpoint_slug, 'call:' || call_id, ${nowIso}::timestamptz
          FROM ok ORDER BY ord
          RETURNING 1
        ), logged AS (
          INSERT INTO calls (id, account_id, api_key_id, provider_id, endpoint_slug, price_credits, deadline_at,
                             created_at)
          SELECT call_id, ${accountId}, api_key_id, provider_id, endpoint_slug, price, deadline_at, created_at
          FROM ok ORDER BY ord
          RETURNING 1
        )
        SELECT ok.ord, ok.balance_after, cur.low_balance_threshold_credits,
               (SELECT successful_payments FROM acct) AS successful_payments
        FROM ok, cur ORDER BY ok.ord`,
  );
  return resultsInOrder(
    inputs.length,
    found.map((r) => ({ ...r, balance_credits: r.balance_after })),
  );
}
