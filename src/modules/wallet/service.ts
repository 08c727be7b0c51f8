// Wallet views of the ledger (docs/billing.md).
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, one, rows } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import { creditsToUsdcShort } from '../../lib/money.js';
import type { LedgerEntry } from '../ledger/index.js';
import {
  toWalletEntry,
  WALLET_TYPE_SOURCES,
  type WalletEntryType,
  type WalletHistoryEntry,
} from '../ledger/index.js';
import { payoutHistory } from '../payouts/index.js';

export interface WalletBalance {
  balance_usdc: string;
  pending_settlements_usdc: string;
  total_deposited_usdc: string;
  total_spent_usdc: string;
}

/** total_spent is net of refunds and includes calls still pending (also shown as pending settlements). */
export async function walletBalance(ex: Executor, accountId: string): Promise<WalletBalance> {
  const row = await one<{
    balance_credits: bigint;
    total_deposited_credits: bigint;
    total_spent_credits: bigint;
    pending: bigint | null;
  }>(
    ex,
    sql`SELECT a.balance_credits, a.total_deposited_credits, a.total_spent_credits,
               (SELECT sum(price_credits) FROM calls c WHERE c.account_id = a.id AND c.status = 'pending') AS pending
        FROM accounts a WHERE a.id = ${accountId}`,
  );
  if (!row) throw new Error(`account ${accountId} vanished`);
  return {
    balance_usdc: creditsToUsdcShort(row.balance_credits),
    pending_settlements_usdc: creditsToUsdcShort(row.pending === null ? 0n : BigInt(row.pending)),
    total_deposited_usdc: creditsToUsdcShort(row.total_deposited_credits),
    total_spent_usdc: creditsToUsdcShort(row.total_spent_credits),
  };
}

export interface HistoryPage {
  entries: WalletHistoryEntry[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * Newest first. The cursor is the `seq` of the last entry returned, so entries written meanwhile (with a
 * higher seq) never shift the following pages: no duplicates, no gaps.
 */
export async function walletHistory(
  ex: Executor,
  accountId: string,
  opts: { limit: number; cursor?: string | undefined; type?: WalletEntryType | undefined },
): Promise<HistoryPage> {
  const conditions: SQL[] = [sql`account_id = ${accountId}`];
  if (opts.cursor) {
    const [seq] = decodeCursor(opts.cursor, 1);
    if (typeof seq !== 'string' || !/^\d{1,19}$/.test(seq)) {
      throw new AppError('SVC-VAL-001', 'Invalid cursor', {
        errors: [{ path: 'cursor', message: 'is not a valid cursor' }],
      });
    }
    conditions.push(sql`seq < ${BigInt(seq)}`);
  }
  if (opts.type) {
    const sources = WALLET_TYPE_SOURCES[opts.type];
    conditions.push(
      sql`type IN (${sql.join(
        sources.map((s) => sql`${s}`),
        sql`, `,
      )})`,
    );
  }
  const found = await rows<LedgerEntry>(
    ex,
    sql`SELECT * FROM ledger_entries WHERE ${sql.join(conditions, sql` AND `)} ORDER BY seq DESC LIMIT ${opts.limit + 1}`,
  );
  // Confirmed provider payouts are not ledger entries (no credits move) but belong in the history: each
  // has a seq of the ledger's sequence, so both lists merge on seq and the same cursor pages through both.
  const payouts =
    opts.type === undefined || opts.type === 'settlement'
      ? await payoutHistory(ex, accountId, { beforeSeq: beforeSeq(opts.cursor), limit: opts.limit + 1 })
      : [];
  const merged = [
    ...found.map((e) => ({ seq: BigInt(e.seq), entry: toWalletEntry(e) })),
    ...payouts.map((p): { seq: bigint; entry: WalletHistoryEntry } => p),
  ].sort((a, b) => (a.seq > b.seq ? -1 : a.seq < b.seq ? 1 : 0));
  const page = merged.slice(0, opts.limit);
  const last = page[page.length - 1];
  const hasMore = merged.length > opts.limit;
  return {
    entries: page.map((p) => p.entry),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor([last.seq.toString()]) : null,
  };
}

const beforeSeq = (cursor: string | undefined) =>
  cursor ? BigInt(decodeCursor(cursor, 1)[0] as string) : undefined;
