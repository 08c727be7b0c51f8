// Crediting a deposit: one database transaction inserts each Transfer log under its unique key
// (chain_id, tx_hash, log_index), the deposit row, the `deposit` ledger entry (balance in the same
// transaction) and the trust-tier counter. A log already in chain_transfers (credited before, by a
// submission or the watcher, or recorded as our own x402 settlement) rolls everything back: credited once.
import { sql } from 'drizzle-orm';
import { one, type Tx } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { countSuccessfulPayment, postEntry } from '../ledger/index.js';
import type { IncomingTransfer } from './verify.js';

export class AlreadyCredited extends Error {}

export interface Deposit {
  id: string;
  accountId: string;
  txHash: string;
  amountCredits: bigint;
  newBalanceCredits: bigint;
}

export interface CreditInput {
  accountId: string;
  txHash: string;
  blockNumber: bigint;
  transfers: IncomingTransfer[];
  source: 'submission' | 'watcher';
}

export async function creditDeposit(deps: AppDeps, input: CreditInput): Promise<Deposit> {
  const chainId = deps.chain.chainId;
  const platform = (deps.chain.platformWallet ?? '').toLowerCase();
  const amount = input.transfers.reduce((sum, t) => sum + t.amount, 0n);
  const id = newId('dep');
  const deposit = await deps.db.orm.transaction(async (tx) => {
    for (const t of input.transfers) {
      const inserted = await one(
        tx,
        sql`INSERT INTO chain_transfers (chain_id, tx_hash, log_index, kind, from_address, to_address,
                                         amount_credits, block_number, account_id, deposit_id)
            VALUES (${chainId}, ${input.txHash}, ${t.logIndex}, 'deposit', ${t.from}, ${platform}, ${t.amount},
                    ${input.blockNumber}, ${input.accountId}, ${id})
            ON CONFLICT DO NOTHING RETURNING log_index`,
      );
      if (!inserted) throw new AlreadyCredited(input.txHash);
    }
    const entry = await postEntry(tx, {
      accountId: input.accountId,
      type: 'deposit',
      amountCredits: amount,
      idempotencyKey: `deposit:${chainId}:${input.txHash}:${input.accountId}`,
      description: `USDC deposit (${input.transfers.length === 1 ? '1 transfer' : `${input.transfers.length} transfers`})`,
      referenceType: 'chain_deposit',
      referenceId: id,
      txHash: input.txHash,
    });
    await tx.execute(
      sql`INSERT INTO deposits (id, account_id, chain_id, tx_hash, amount_credits, block_number, source, ledger_entry_id)
          VALUES (${id}, ${input.accountId}, ${chainId}, ${input.txHash}, ${amount}, ${input.blockNumber},
                  ${input.source}, ${entry.id})`,
    );
    // Trust tiers count confirmed deposits as successful payments (docs/deposits.md).
    await countSuccessfulPayment(tx, input.accountId);
    return {
      id,
      accountId: input.accountId,
      txHash: input.txHash,
      amountCredits: amount,
      newBalanceCredits: entry.balance_after,
    };
  });
  deps.events.emit('payments.counted', { accountId: input.accountId });
  deps.events.emit('deposit.confirmed', deposit);
  return deposit;
}

/**
 * For x402: records the USDC transfers to the platform wallet of a transaction the service settled
 * itself, under the same unique key as deposits, so they can never be claimed as a deposit (and the
 * watcher skips them). Call it in the settlement's own transaction. Idempotent.
 */
export async function recordSettledTransfers(
  tx: Tx,
  deps: AppDeps,
  settled: {
    txHash: string;
    blockNumber: bigint;
    transfers: { logIndex: number; from: string; amount: bigint }[];
  },
): Promise<void> {
  const platform = (deps.chain.platformWallet ?? '').toLowerCase();
  for (const t of settled.transfers) {
    await tx.execute(
      sql`INSERT INTO chain_transfers (chain_id, tx_hash, log_index, kind, from_address, to_address,
                                       amount_credits, block_number)
          VALUES (${deps.chain.chainId}, ${settled.txHash.toLowerCase()}, ${t.logIndex}, 'x402',
                  ${t.from.toLowerCase()}, ${platform}, ${t.amount}, ${settled.blockNumber})
          ON CONFLICT DO NOTHING`,
    );
  }
}
