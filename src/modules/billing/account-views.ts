// Reading the account: billing balance (docs/billing.md) and the ledger as billing transactions.
import { type SQL, sql } from 'drizzle-orm';
import { one, rows } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { utcDay } from '../../lib/clock.js';
import { creditsToUsdc } from '../../lib/money.js';
import type { LedgerEntry } from '../ledger/index.js';
import { toLedgerTransaction } from '../ledger/index.js';
import { invalid, parseInstant } from './dates.js';

interface AccountMoneyRow {
  balance_credits: bigint;
  daily_spent_credits: bigint;
  daily_spent_day: string;
  daily_limit_credits: bigint | null;
  per_call_limit_credits: bigint | null;
  low_balance_threshold_credits: bigint | null;
  status: 'active' | 'suspended' | 'closed';
}

const optionalCredits = (v: bigint | null) => (v === null ? null : v.toString());
const optionalUsdc = (v: bigint | null) => (v === null ? null : creditsToUsdc(v));

export async function getBalance(deps: AppDeps, accountId: string) {
  const a = await one<AccountMoneyRow>(
    deps.db.orm,
    sql`SELECT balance_credits, daily_spent_credits, daily_spent_day::text AS daily_spent_day,
               daily_limit_credits, per_call_limit_credits, low_balance_threshold_credits, status
        FROM accounts WHERE id = ${accountId}`,
  );
  if (!a) throw new Error(`account ${accountId} vanished`);
  // The counter belongs to the UTC day of the last debit; on a later day nothing is spent yet.
  const dailySpent = a.daily_spent_day === utcDay(deps.clock.now()) ? a.daily_spent_credits : 0n;
  return {
    balanceCredits: a.balance_credits.toString(),
    balanceUsdc: creditsToUsdc(a.balance_credits),
    dailySpentCredits: dailySpent.toString(),
    dailySpentUsdc: creditsToUsdc(dailySpent),
    dailySpendLimitCredits: optionalCredits(a.daily_limit_credits),
    dailySpendLimitUsdc: optionalUsdc(a.daily_limit_credits),
    perCallLimitCredits: optionalCredits(a.per_call_limit_credits),
    perCallLimitUsdc: optionalUsdc(a.per_call_limit_credits),
    // No threshold behaves like "0": the balance can never drop below zero.
    lowBalanceAlertThreshold: (a.low_balance_threshold_credits ?? 0n).toString(),
    status: a.status,
  };
}

export const TRANSACTION_TYPES = [
  'deposit',
  'debit',
  'refund',
  'admin_credit',
  'coupon_credit',
  'payment_refund',
] as const;

export interface TransactionQuery {
  page: number;
  limit: number;
  type?: (typeof TRANSACTION_TYPES)[number] | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export async function listTransactions(deps: AppDeps, accountId: string, q: TransactionQuery) {
  const from = q.from === undefined ? undefined : parseInstant(q.from, 'query.from', 'lower');
  const to = q.to === undefined ? undefined : parseInstant(q.to, 'query.to', 'upper');
  if (from && to && from >= to) throw invalid('query.from', 'must be before query.to');
  const filters: SQL[] = [sql`account_id = ${accountId}`];
  if (q.type) filters.push(sql`type = ${q.type}`);
  // `from` inclusive, `to` exclusive (a bare day `to` already points past the end of that day).
  if (from) filters.push(sql`created_at >= ${from.toISOString()}`);
  if (to) filters.push(sql`created_at < ${to.toISOString()}`);
  const where = sql.join(filters, sql` AND `);
  // Newest first by seq: the ledger's own order, stable even for entries with the same timestamp.
  const list = await rows<LedgerEntry>(
    deps.db.orm,
    sql`SELECT * FROM ledger_entries WHERE ${where} ORDER BY seq DESC
        LIMIT ${q.limit} OFFSET ${(q.page - 1) * q.limit}`,
  );
  const count = await one<{ total: bigint }>(
    deps.db.orm,
    sql`SELECT count(*) AS total FROM ledger_entries WHERE ${where}`,
  );
  return {
    transactions: list.map(toLedgerTransaction),
    pagination: { page: q.page, limit: q.limit, total: Number(count?.total ?? 0n) },
  };
}
