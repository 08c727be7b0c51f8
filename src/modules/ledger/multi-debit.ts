// Debits of DIFFERENT accounts in one statement (group commit across accounts): when many accounts pay at
// once, one statement and one commit (one WAL flush) serve many calls instead of one each.
//
// Each request is judged exactly as debitForCall with onlyWithoutAlert judges it alone (the one debit rule,
// ledger/debit-rule.ts: key, account status, per-call and daily limits, balance, no alert due); the
// requests are independent, so one that fails its conditions is simply not debited (the caller retries it
// alone, which also explains the refusal) and never affects the others. Every account appears at most once
// per statement (the caller guarantees it), so each account row is updated once. The rows are locked in id
// order first so that two such statements (from two instances) do not deadlock on each other; were one to
// deadlock anyway, it fails as a whole (writes nothing) and the caller retries its calls one by one.
// Requests with an Idempotency-Key never come here: their unique violation must fail only their own call.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import { utcDay } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { type DebitForCallInput, type DebitResult, type DebitRow, resultsInOrder } from './calls.js';
import { debitRefusal, spentOnDay } from './debit-rule.js';
import { columnsOf, preparedRows } from './prepared.js';

/**
 * Results in request order; undefined = not debited (retry it alone). Account ids must be distinct.
 * Fixed text with one array per column, so PostgreSQL plans it once per connection whatever the group size.
 */
export async function debitAcrossAccounts(
  db: Database,
  inputs: DebitForCallInput[],
): Promise<(DebitResult | undefined)[]> {
  const column = columnsOf(inputs);
  const refusal = debitRefusal({
    account: sql`a`,
    price: sql`r.price`,
    upTo: sql`r.price`,
    day: sql`r.day`,
    apiKeyId: sql`r.api_key_id`,
    onlyWithoutAlert: true,
  });
  const found = await preparedRows<DebitRow & { ord: number }>(
    db,
    'svc_debit_across_accounts',
    sql`WITH req AS (
          SELECT (n - 1)::int AS ord, account_id, call_id, txn_id, price, provider_id, endpoint_slug, api_key_id,
                 deadline_at, created_at, day
          FROM unnest(${column((d) => d.accountId)}::text[], ${column((d) => d.callId)}::text[],
                      ${column(() => newId('txn'))}::text[], ${column((d) => d.priceCredits)}::bigint[],
                      ${column((d) => d.providerId)}::text[], ${column((d) => d.endpointSlug)}::text[],
                      ${column((d) => d.apiKeyId)}::text[], ${column((d) => d.deadlineAt.toISOString())}::timestamptz[],
                      ${column((d) => d.now.toISOString())}::timestamptz[], ${column((d) => utcDay(d.now))}::date[])
               WITH ORDINALITY AS u (account_id, call_id, txn_id, price, provider_id, endpoint_slug, api_key_id,
                                     deadline_at, created_at, day, n)
        ), locked AS (
          SELECT a.id FROM accounts a WHERE a.id IN (SELECT account_id FROM req) ORDER BY a.id FOR UPDATE
        ), acct AS (
          UPDATE accounts a SET
            balance_credits = a.balance_credits - r.price,
            total_spent_credits = a.total_spent_credits + r.price,
            successful_payments = a.successful_payments + 1,
            daily_spent_credits = ${spentOnDay(sql`a`, sql`r.day`)} + r.price,
            daily_spent_day = r.day
          FROM req r
          WHERE a.id = r.account_id AND a.id IN (SELECT id FROM locked) AND ${refusal} IS NULL
          RETURNING r.ord, a.balance_credits, a.low_balance_threshold_credits, a.successful_payments
        ), done AS (
          SELECT r.*, acct.balance_credits, acct.low_balance_threshold_credits, acct.successful_payments
          FROM acct JOIN req r ON r.ord = acct.ord
        ), entry AS (
          INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, description,
                                      reference_type, reference_id, call_id, provider_id, endpoint_slug,
                                      idempotency_key, created_at)
          SELECT txn_id, account_id, 'debit', -price, balance_credits, 'Call ' || provider_id || '/' || endpoint_slug,
                 'call', call_id, call_id, provider_id, endpoint_slug, 'call:' || call_id, created_at
          FROM done
          RETURNING 1
        ), logged AS (
          INSERT INTO calls (id, account_id, api_key_id, provider_id, endpoint_slug, price_credits, deadline_at,
                             created_at)
          SELECT call_id, account_id, api_key_id, provider_id, endpoint_slug, price, deadline_at, created_at
          FROM done
          RETURNING 1
        )
        SELECT ord, balance_credits, low_balance_threshold_credits, successful_payments FROM done`,
  );
  return resultsInOrder(inputs.length, found);
}
