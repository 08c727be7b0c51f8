// Several debits of ONE account in one statement. A busy account's row lock is held through each commit's
// WAL flush, so one debit per statement caps an account at one flush per call; calls that queue up behind
// each other are debited together instead (see execution/debit-coalescer.ts).
//
// Same rule as debitForCall with onlyWithoutAlert (ledger/debit-rule.ts), applied in request order with
// the running total of the batch in place of the price: the longest admissible prefix is debited; each gets its own ledger entry (balance_after chained in order)
// and pending call row; a request whose API key is revoked ends the prefix. Requests after the prefix are
// not debited (the caller retries them one by one, which also explains a refusal). Requests with an Idempotency-Key never come here.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import { utcDay } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { type DebitForCallInput, type DebitResult, resultsInOrder } from './calls.js';
import { debitRefusal, spentOnDay } from './debit-rule.js';
import { columnsOf, preparedRows } from './prepared.js';

/**
 * Results in request order; undefined = not debited (retry it alone). All inputs share accountId.
 * Each call's daily window is the UTC day of its own `now`: a batch that straddles midnight is debited as
 * one statement per run of calls of the same day, in order, and stops at the first run not debited whole
 * (exactly as the calls one after the other would go).
 */
export async function debitBatchForAccount(
  db: Database,
  accountId: string,
  inputs: DebitForCallInput[],
): Promise<(DebitResult | undefined)[]> {
  const out: (DebitResult | undefined)[] = [];
  let start = 0;
  while (start < inputs.length) {
    const day = utcDay((inputs[start] as DebitForCallInput).now);
    let end = start + 1;
    while (end < inputs.length && utcDay((inputs[end] as DebitForCallInput).now) === day) end++;
    const run = await debitSameDay(db, accountId, inputs.slice(start, end), day);
    out.push(...run);
    if (run.some((r) => r === undefined)) break;
    start = end;
  }
  while (out.length < inputs.length) out.push(undefined);
  return out;
}

/**
 * One statement for calls of one account and one UTC day. Fixed text with one array per column, so
 * PostgreSQL plans it once per connection whatever the batch size.
 */
async function debitSameDay(
  db: Database,
  accountId: string,
  inputs: DebitForCallInput[],
  day: string,
): Promise<(DebitResult | undefined)[]> {
  const column = columnsOf(inputs);
  const refusal = debitRefusal({
    account: sql`cur`,
    price: sql`running.price`,
    upTo: sql`running.cum`,
    day: sql`${day}::date`,
    apiKeyId: sql`running.api_key_id`,
    onlyWithoutAlert: true,
  });
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
          SELECT id, balance_credits, status, per_call_limit_credits, daily_limit_credits, daily_spent_day,
                 daily_spent_credits, low_balance_threshold_credits, successful_payments
          FROM accounts WHERE id = ${accountId} FOR UPDATE
        ), running AS (
          SELECT r.*, sum(r.price) OVER (ORDER BY r.ord) AS cum FROM req r
        ), checked AS (
          SELECT running.*, cur.balance_credits - running.cum AS balance_after,
                 bool_and(${refusal} IS NULL) OVER (ORDER BY running.ord) AS in_prefix
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
            daily_spent_credits = ${spentOnDay(sql`accounts`, sql`${day}::date`)} + t.total,
            daily_spent_day = ${day}::date
          FROM totals t WHERE id = ${accountId} AND t.n > 0
          RETURNING successful_payments
        ), entry AS (
          INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, description,
                                      reference_type, reference_id, call_id, provider_id, endpoint_slug,
                                      idempotency_key, created_at)
          SELECT txn_id, ${accountId}, 'debit', -price, balance_after, 'Call ' || provider_id || '/' || endpoint_slug,
                 'call', call_id, call_id, provider_id, endpoint_slug, 'call:' || call_id, created_at
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
