// docs/deposits.md: if the devnet chain lost its state (the state file was deleted or is older than
// the ledger), crediting again from a fresh chain would mint balance out of nothing. At start the service
// checks that the newest transfer it accounted for is still on the chain, and stops otherwise.
import { sql } from 'drizzle-orm';
import type { Hex } from 'viem';
import { isNotFound } from '../../adapters/chain/runtime.js';
import { one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';

export class ChainBehindLedger extends Error {}

export async function assertChainNotBehindLedger(deps: AppDeps): Promise<void> {
  const client = deps.chain.publicClient;
  if (!client) return;
  const newest = await one<{ tx_hash: string; block_number: bigint }>(
    deps.db.orm,
    sql`SELECT tx_hash, block_number FROM chain_transfers WHERE chain_id = ${deps.chain.chainId}
        ORDER BY block_number DESC LIMIT 1`,
  );
  if (!newest) return;
  const head = await client.getBlockNumber();
  let onChain = head >= BigInt(newest.block_number);
  if (onChain) {
    try {
      const receipt = await client.getTransactionReceipt({ hash: newest.tx_hash as Hex });
      onChain = receipt.blockNumber === BigInt(newest.block_number);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      onChain = false;
    }
  }
  if (!onChain) {
    throw new ChainBehindLedger(
      `The chain (head block ${head}) is behind what the ledger already credited (transaction ${newest.tx_hash} ` +
        `in block ${newest.block_number}). Refusing to start: crediting from this chain could credit twice. ` +
        'Restore the chain state (in devnet: <data dir>/devnet/anvil-state.json) or start with a fresh data dir.',
    );
  }
}
