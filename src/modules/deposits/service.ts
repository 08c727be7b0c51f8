// POST /v1/wallet/deposit (docs/deposits.md), checks in this order, each with its code:
// receipt exists (SVC-PAY-002) → succeeded, with USDC Transfer logs to the platform wallet from a wallet
// linked to the caller (SVC-PAY-005) → enough confirmations (SVC-PAY-006) → at least 5 USDC
// (SVC-PAY-004) → not credited before (SVC-PAY-003). RPC failures are 503 SVC-SYS-002; nothing is
// credited on doubt. The format of the hash (SVC-VAL-001) is the route schema's.
import type { Hex } from 'viem';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { linkedWallets } from '../auth/index.js';
import { MIN_DEPOSIT_CREDITS, readyChain } from '../chain/index.js';
import { AlreadyCredited, creditDeposit, type Deposit } from './credit.js';
import { confirmationsOf, depositTransfers, fetchReceipt } from './verify.js';

export async function submitDeposit(deps: AppDeps, accountId: string, txHashInput: string): Promise<Deposit> {
  const chain = readyChain(deps.chain);
  // Hashes are compared lowercase: an upper-case copy of a credited hash is the same transaction.
  const txHash = txHashInput.toLowerCase();
  const receipt = await fetchReceipt(chain, txHash as Hex);
  if (!receipt) throw new AppError('SVC-PAY-002');
  const facts = depositTransfers(chain, receipt);
  const mine = await linkedWallets(deps.db.orm, accountId);
  const transfers = facts.transfers.filter((t) => mine.has(t.from));
  if (!facts.succeeded || transfers.length === 0) throw new AppError('SVC-PAY-005');
  const confirmations = await confirmationsOf(chain, facts.blockNumber);
  if (confirmations < BigInt(chain.confirmations)) {
    throw new AppError('SVC-PAY-006', undefined, {
      confirmations: Number(confirmations),
      required_confirmations: chain.confirmations,
    });
  }
  const amount = transfers.reduce((sum, t) => sum + t.amount, 0n);
  if (amount < MIN_DEPOSIT_CREDITS) throw new AppError('SVC-PAY-004');
  try {
    return await creditDeposit(deps, {
      accountId,
      txHash,
      blockNumber: facts.blockNumber,
      transfers,
      source: 'submission',
    });
  } catch (err) {
    if (err instanceof AlreadyCredited) throw new AppError('SVC-PAY-003');
    throw err;
  }
}
