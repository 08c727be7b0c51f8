// Provider earnings and the settlement that pays them (docs/payouts.md):
// 1. settle: per provider with an owner, in one transaction, claim the earning calls finished before the
//    cutoff (calls.settlement_id), compute gross, fee (rounded down) and net, and write one settlement row:
//    `carried_over` when net plus the earlier carried-over nets is below the minimum, else `pending`
//    (which then includes those carried-over rows);
// 2. pay: each `pending` payout whose owner has a payout wallet becomes ONE USDC transfer through the
//    platform key's one sender (purpose 'payout', reference = settlement id, its idempotency key): signed
//    and stored before broadcast, so a crash or a second instance can only rebroadcast the same transfer;
// 3. the chain module's `platform-tx.finished` hook marks it `confirmed` (or `failed`) in the transaction
//    that records the receipt, and raises `settlement.paid` / `settlement.failed` for the e-mail.

import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type Address, encodeFunctionData } from 'viem';
import { type Executor, one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { crashPoint } from '../../lib/crash-point.js';
import { newId } from '../../lib/ids.js';
import { linkedWallets } from '../auth/index.js';
import {
  NoPlatformKey,
  type PlatformTx,
  PlatformTxRejected,
  readyChain,
  sendPlatformTransaction,
  usdcAbi,
} from '../chain/index.js';
import { nextHistorySeq } from '../ledger/index.js';
import {
  claimEarnedCalls,
  findSettlement,
  insertSettlement,
  lastPeriodEnd,
  lockCarriedOver,
  markCarriedPaidBy,
  payoutReference,
  pendingPayouts,
  pinWallet,
  reopenFailed,
  type SettlementRow,
  settlementOfReference,
  settlementsByIds,
} from './repo.js';

const DAY_MS = 24 * 60 * 60_000;

/** The platform's fee on a gross amount: basis points, rounded down to a whole credit. */
export function feeOf(gross: bigint, feeBps: number): bigint {
  return (gross * BigInt(feeBps)) / 10_000n;
}

/** Settles every owned provider's earnings up to `until` (minus the hold days) and pays what is due. */
export async function runSettlement(
  deps: AppDeps,
  until: Date,
  log?: FastifyBaseLogger,
): Promise<SettlementRow[]> {
  const cutoff = new Date(until.getTime() - deps.config.payouts.holdDays * DAY_MS);
  const providers = await deps.db.orm.execute(
    sql`SELECT id, owner_account_id FROM providers WHERE owner_account_id IS NOT NULL ORDER BY id`,
  );
  const made: string[] = [];
  for (const p of (providers as unknown as { rows: { id: string; owner_account_id: string }[] }).rows) {
    const id = await settleProvider(deps, {
      providerId: p.id,
      ownerAccountId: p.owner_account_id,
      until,
      cutoff,
    });
    if (id) made.push(id);
  }
  await payPending(deps, log);
  return settlementsByIds(deps.db.orm, made);
}

async function settleProvider(
  deps: AppDeps,
  p: { providerId: string; ownerAccountId: string; until: Date; cutoff: Date },
): Promise<string | undefined> {
  const { feeBps, minPayoutCredits } = deps.config.payouts;
  const id = newId('stl');
  return deps.db.orm.transaction(async (tx) => {
    const carried = await lockCarriedOver(tx, p.providerId, p.ownerAccountId);
    const earned = await claimEarnedCalls(tx, { settlementId: id, ...p });
    const carriedIn = carried.reduce((sum, c) => sum + BigInt(c.net_credits), 0n);
    if (earned.calls === 0 && carriedIn === 0n) return undefined;
    const fee = feeOf(earned.gross, feeBps);
    const net = earned.gross - fee;
    const total = net + carriedIn;
    const payable = total >= minPayoutCredits && total > 0n;
    // Nothing new and still below the minimum: the carried-over rows simply wait.
    if (!payable && earned.calls === 0) return undefined;
    const now = deps.clock.now();
    await insertSettlement(tx, {
      id,
      providerId: p.providerId,
      accountId: p.ownerAccountId,
      periodStart: (await lastPeriodEnd(tx, p.providerId)) ?? earned.first ?? p.until.toISOString(),
      periodEnd: p.until,
      totalCalls: earned.calls,
      gross: earned.gross,
      feeBps,
      fee,
      net,
      carriedIn: payable ? carriedIn : 0n,
      amount: payable ? total : 0n,
      status: payable ? 'pending' : 'carried_over',
      now,
    });
    if (payable) {
      await markCarriedPaidBy(
        tx,
        carried.map((c) => c.id),
        id,
      );
    }
    return id;
  });
}

/**
 * Sends the transfer of every `pending` payout whose owner has a payout wallet (safe on N instances: the
 * platform sender is idempotent per settlement id). Without a platform key, or with the chain down, they
 * stay `pending` for a later pass. The payout wallet must still be linked to the owner when a payout is
 * first sent: a wallet unlinked since it was chosen (lost key, sold wallet) holds the payout until the
 * owner links it again or chooses another. Returns how many were submitted.
 */
export async function payPending(deps: AppDeps, log?: FastifyBaseLogger): Promise<number> {
  if (!deps.chain.platformAccount || !deps.chain.publicClient) return 0;
  let sent = 0;
  for (const s of await pendingPayouts(deps.db.orm, 100)) {
    const wallet = s.wallet_address ?? s.payout_wallet;
    if (!wallet) continue;
    // A destination pinned by an earlier attempt stays: that transfer may already be on its way.
    if (!s.wallet_address && !(await linkedWallets(deps.db.orm, s.account_id)).has(wallet)) {
      log?.warn({ settlementId: s.id }, 'payout held: the payout wallet is no longer linked to its owner');
      continue;
    }
    try {
      if (await payOne(deps, s, wallet)) sent++;
    } catch (err) {
      log?.warn({ err, settlementId: s.id }, 'payout not sent; retried later');
    }
  }
  return sent;
}

async function payOne(deps: AppDeps, s: SettlementRow, wallet: string): Promise<boolean> {
  const to = await pinWallet(deps.db.orm, s.id, wallet);
  if (!to) return false;
  const usdc = readyChain(deps.chain).usdcAddress;
  let ptx: PlatformTx;
  try {
    ptx = await sendPlatformTransaction(deps, {
      purpose: 'payout',
      reference: payoutReference(s.id, Number(s.attempt)),
      to: usdc,
      data: encodeFunctionData({
        abi: usdcAbi,
        functionName: 'transfer',
        args: [to as Address, BigInt(s.amount_credits)],
      }),
    });
  } catch (err) {
    if (err instanceof NoPlatformKey) return false;
    if (err instanceof PlatformTxRejected) {
      // Nothing was signed: the node says the transfer would revert (typically the hot wallet lacks USDC).
      await deps.db.orm.transaction((tx) =>
        markFailed(tx, deps, s.id, `the transfer was refused by the node: ${err.message}`),
      );
      return false;
    }
    throw err;
  }
  crashPoint(deps.config, 'payout:broadcast');
  await deps.db.orm.transaction((tx) => applyOutcome(tx, deps, s.id, ptx));
  return true;
}

/** Records what the chain says about a payout's transaction (sent, mined, reverted, dropped). */
async function applyOutcome(
  ex: Executor,
  deps: AppDeps,
  settlementId: string,
  ptx: Pick<PlatformTx, 'id' | 'status' | 'txHash' | 'blockNumber'>,
): Promise<void> {
  if (ptx.status === 'pending') {
    await ex.execute(
      sql`UPDATE settlements SET status = 'submitted', platform_tx_id = ${ptx.id}, tx_hash = ${ptx.txHash},
                 updated_at = now()
          WHERE id = ${settlementId} AND status = 'pending'`,
    );
    return;
  }
  if (ptx.status !== 'confirmed') {
    await markFailed(ex, deps, settlementId, `the transfer ${ptx.txHash} was ${ptx.status} on-chain`, ptx);
    return;
  }
  const seq = await nextHistorySeq(ex);
  const done = await one<SettlementRow>(
    ex,
    sql`UPDATE settlements SET status = 'confirmed', platform_tx_id = ${ptx.id}, tx_hash = ${ptx.txHash},
               block_number = ${ptx.blockNumber}, history_seq = ${seq},
               confirmed_at = ${deps.clock.now().toISOString()}, updated_at = now()
        WHERE id = ${settlementId} AND status IN ('pending', 'submitted') RETURNING *`,
  );
  if (!done) return;
  await deps.hooks.run('settlement.paid', ex, {
    accountId: done.account_id,
    settlementId: done.id,
    providerId: done.provider_id,
    amountCredits: BigInt(done.amount_credits),
    grossCredits: BigInt(done.gross_credits),
    feeCredits: BigInt(done.fee_credits),
    walletAddress: done.wallet_address ?? '',
    txHash: ptx.txHash,
  });
}

async function markFailed(
  ex: Executor,
  deps: AppDeps,
  settlementId: string,
  reason: string,
  ptx?: Pick<PlatformTx, 'id' | 'txHash' | 'blockNumber'>,
): Promise<void> {
  const failed = await one<SettlementRow>(
    ex,
    sql`UPDATE settlements SET status = 'failed', failure_reason = ${reason},
               platform_tx_id = coalesce(${ptx?.id ?? null}, platform_tx_id),
               tx_hash = coalesce(${ptx?.txHash ?? null}, tx_hash),
               block_number = coalesce(${ptx?.blockNumber ?? null}::bigint, block_number), updated_at = now()
        WHERE id = ${settlementId} AND status IN ('pending', 'submitted') RETURNING *`,
  );
  if (!failed) return;
  await deps.hooks.run('settlement.failed', ex, {
    accountId: failed.account_id,
    settlementId: failed.id,
    providerId: failed.provider_id,
    amountCredits: BigInt(failed.amount_credits),
    reason,
  });
}

/** `platform-tx.finished` handler: a payout's transfer was mined, reverted or dropped. */
export async function onPlatformTxFinished(
  ex: Executor,
  deps: AppDeps,
  e: {
    id: string;
    purpose: string;
    reference: string;
    status: 'confirmed' | 'reverted' | 'dropped';
    txHash: string;
    blockNumber: bigint | null;
  },
): Promise<void> {
  if (e.purpose !== 'payout') return;
  await applyOutcome(ex, deps, settlementOfReference(e.reference), {
    id: e.id,
    status: e.status,
    txHash: e.txHash as `0x${string}`,
    blockNumber: e.blockNumber,
  });
}

/** One settlement, re-read (tests and the admin route after a run). */
export function getSettlement(deps: AppDeps, id: string) {
  return findSettlement(deps.db.orm, id);
}

/** Operator retry of a failed payout: a new attempt, sent at once if the owner has a payout wallet. */
export async function retrySettlement(deps: AppDeps, id: string, log?: FastifyBaseLogger) {
  const result = await deps.db.orm.transaction((tx) => reopenFailed(tx, id));
  if (result === 'not_found') throw new AppError('SVC-PAYOUT-001');
  if (result === 'not_failed') throw new AppError('SVC-PAYOUT-002');
  await payPending(deps, log);
  const row = await findSettlement(deps.db.orm, id);
  if (!row) throw new AppError('SVC-PAYOUT-001');
  return row;
}
