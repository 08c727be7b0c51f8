// What providers and operators read: unsettled earnings, settlement lists, the fee income report, and the
// payout entries of the owner's wallet history.
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, one, rows, toIso } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import { creditsToSignedUsdc, creditsToUsdc } from '../../lib/money.js';
import { earningCalls, type SettlementRow, type SettlementStatus } from './repo.js';
import { nextSettlementAt } from './schedule.js';
import { feeOf } from './service.js';

export interface SettlementView {
  settlement_id: string;
  provider_id: string;
  account_id: string;
  period_start: string;
  period_end: string;
  total_calls: number;
  gross_usdc: string;
  fee_usdc: string;
  net_usdc: string;
  carried_in_usdc: string;
  amount_usdc: string;
  status: SettlementStatus;
  wallet_address: string | null;
  tx_hash: string | null;
  block_number: number | null;
  paid_by_settlement_id: string | null;
  failure_reason: string | null;
  created_at: string;
  confirmed_at: string | null;
}

export function toSettlementView(s: SettlementRow): SettlementView {
  return {
    settlement_id: s.id,
    provider_id: s.provider_id,
    account_id: s.account_id,
    period_start: toIso(s.period_start),
    period_end: toIso(s.period_end),
    total_calls: Number(s.total_calls),
    gross_usdc: creditsToUsdc(BigInt(s.gross_credits)),
    fee_usdc: creditsToUsdc(BigInt(s.fee_credits)),
    net_usdc: creditsToUsdc(BigInt(s.net_credits)),
    carried_in_usdc: creditsToUsdc(BigInt(s.carried_in_credits)),
    amount_usdc: creditsToUsdc(BigInt(s.amount_credits)),
    status: s.status,
    wallet_address: s.wallet_address,
    tx_hash: s.tx_hash,
    block_number: s.block_number === null ? null : Number(s.block_number),
    paid_by_settlement_id: s.paid_by_settlement_id,
    failure_reason: s.failure_reason,
    created_at: toIso(s.created_at),
    confirmed_at: s.confirmed_at ? toIso(s.confirmed_at) : null,
  };
}

export interface Earnings {
  unsettled_calls: number;
  unsettled_gross_usdc: string;
  unsettled_fee_usdc: string;
  unsettled_net_usdc: string;
  carried_over_usdc: string;
  next_settlement_at: string;
}

/** Earnings of the providers `accountId` owns that no settlement includes yet. */
export async function providerEarnings(deps: AppDeps, accountId: string): Promise<Earnings> {
  const ex = deps.db.orm;
  const perProvider = await rows<{ calls: number; gross: bigint }>(
    ex,
    sql`SELECT count(*)::int AS calls, sum(calls.price_credits)::bigint AS gross
        FROM calls JOIN providers p ON p.id = calls.provider_id
        WHERE p.owner_account_id = ${accountId} AND ${earningCalls(accountId)}
        GROUP BY calls.provider_id`,
  );
  const { feeBps } = deps.config.payouts;
  let calls = 0;
  let gross = 0n;
  let fee = 0n;
  for (const p of perProvider) {
    calls += Number(p.calls);
    gross += BigInt(p.gross ?? 0n);
    // The fee is taken per settlement, i.e. per provider: summing per-provider fees matches what is paid.
    fee += feeOf(BigInt(p.gross ?? 0n), feeBps);
  }
  const carried = await one<{ net: bigint | null }>(
    ex,
    sql`SELECT sum(net_credits)::bigint AS net FROM settlements
        WHERE account_id = ${accountId} AND status = 'carried_over' AND paid_by_settlement_id IS NULL`,
  );
  return {
    unsettled_calls: calls,
    unsettled_gross_usdc: creditsToUsdc(gross),
    unsettled_fee_usdc: creditsToUsdc(fee),
    unsettled_net_usdc: creditsToUsdc(gross - fee),
    carried_over_usdc: creditsToUsdc(BigInt(carried?.net ?? 0n)),
    next_settlement_at: nextSettlementAt(deps.clock.now()).toISOString(),
  };
}

export interface SettlementPage {
  items: SettlementView[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Newest first; the cursor is the (created_at, id) of the last row returned. */
export async function listSettlements(
  ex: Executor,
  filter: { accountId?: string; status?: SettlementStatus; providerId?: string },
  page: { limit: number; cursor?: string | undefined },
): Promise<SettlementPage> {
  const where: SQL[] = [sql`true`];
  if (filter.accountId) where.push(sql`account_id = ${filter.accountId}`);
  if (filter.status) where.push(sql`status = ${filter.status}`);
  if (filter.providerId) where.push(sql`provider_id = ${filter.providerId}`);
  if (page.cursor) {
    const [at, id] = decodeCursor(page.cursor, 2);
    if (typeof at !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(at))) {
      throw new AppError('SVC-VAL-001', 'Invalid cursor', {
        errors: [{ path: 'cursor', message: 'is not a valid cursor' }],
      });
    }
    where.push(sql`(created_at, id) < (${at}::timestamptz, ${id})`);
  }
  const found = await rows<SettlementRow>(
    ex,
    sql`SELECT * FROM settlements WHERE ${sql.join(where, sql` AND `)}
        ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1}`,
  );
  const items = found.slice(0, page.limit);
  const last = items[items.length - 1];
  const hasMore = found.length > page.limit;
  return {
    items: items.map(toSettlementView),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor([toIso(last.created_at), last.id]) : null,
  };
}

export interface FeeReport {
  from: string | null;
  to: string | null;
  settlements: number;
  gross_usdc: string;
  /** Fees of every settlement but failed ones: earned by the platform, paid out or not yet. */
  fee_usdc: string;
  /** Fees of settlements whose payout is confirmed on-chain (including carried-over rows it paid). */
  collected_fee_usdc: string;
  paid_out_usdc: string;
  pending_usdc: string;
  failed_count: number;
  failed_usdc: string;
}

/** The platform's fee income over the settlements made in [from, to). */
export async function feeReport(ex: Executor, range: { from?: Date; to?: Date }): Promise<FeeReport> {
  const where: SQL[] = [sql`true`];
  if (range.from) where.push(sql`s.created_at >= ${range.from.toISOString()}`);
  if (range.to) where.push(sql`s.created_at < ${range.to.toISOString()}`);
  const r = await one<Record<string, bigint | number | null>>(
    ex,
    sql`SELECT count(*)::int AS n,
               sum(s.gross_credits) FILTER (WHERE s.status <> 'failed')::bigint AS gross,
               sum(s.fee_credits) FILTER (WHERE s.status <> 'failed')::bigint AS fee,
               sum(s.fee_credits) FILTER (WHERE s.status = 'confirmed' OR payer.status = 'confirmed')::bigint AS collected,
               sum(s.amount_credits) FILTER (WHERE s.status = 'confirmed')::bigint AS paid,
               sum(s.amount_credits) FILTER (WHERE s.status IN ('pending', 'submitted'))::bigint AS pending,
               count(*) FILTER (WHERE s.status = 'failed')::int AS failed_n,
               sum(s.amount_credits) FILTER (WHERE s.status = 'failed')::bigint AS failed
        FROM settlements s LEFT JOIN settlements payer ON payer.id = s.paid_by_settlement_id
        WHERE ${sql.join(where, sql` AND `)}`,
  );
  const c = (k: string) => creditsToUsdc(BigInt(r?.[k] ?? 0n));
  return {
    from: range.from?.toISOString() ?? null,
    to: range.to?.toISOString() ?? null,
    settlements: Number(r?.n ?? 0),
    gross_usdc: c('gross'),
    fee_usdc: c('fee'),
    collected_fee_usdc: c('collected'),
    paid_out_usdc: c('paid'),
    pending_usdc: c('pending'),
    failed_count: Number(r?.failed_n ?? 0),
    failed_usdc: c('failed'),
  };
}

/** A confirmed payout as a wallet history entry, with its place in the ledger's seq order. */
export interface PayoutHistoryEntry {
  seq: bigint;
  entry: {
    id: string;
    type: 'settlement';
    amount_usdc: string;
    description: string;
    provider_id: string;
    tx_hash: string;
    timestamp: string;
  };
}

/** The owner's confirmed payouts below `beforeSeq`, newest first (read by the wallet history). */
export async function payoutHistory(
  ex: Executor,
  accountId: string,
  opts: { beforeSeq?: bigint | undefined; limit: number },
): Promise<PayoutHistoryEntry[]> {
  const found = await rows<SettlementRow>(
    ex,
    sql`SELECT * FROM settlements
        WHERE account_id = ${accountId} AND history_seq IS NOT NULL
          ${opts.beforeSeq === undefined ? sql`` : sql`AND history_seq < ${opts.beforeSeq}`}
        ORDER BY history_seq DESC LIMIT ${opts.limit}`,
  );
  return found.map((s) => ({
    seq: BigInt(s.history_seq ?? 0n),
    entry: {
      id: s.id,
      type: 'settlement',
      amount_usdc: creditsToSignedUsdc(BigInt(s.amount_credits), true),
      description: `Provider payout for ${s.provider_id} (${s.total_calls} calls) to ${s.wallet_address}`,
      provider_id: s.provider_id,
      tx_hash: s.tx_hash ?? '',
      timestamp: toIso(s.confirmed_at ?? s.created_at),
    },
  }));
}
