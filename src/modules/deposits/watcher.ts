// The deposit watcher (docs/deposits.md): follows USDC Transfer logs to the platform wallet and
// credits those from linked wallets once they have the configured confirmations, through the same code
// path and unique key as a submission (a later submission of the same hash answers 409 SVC-PAY-003).
// - Its cursor (last fully processed block) lives in chain_cursors; it moves only after every transfer
//   up to it was credited or skipped, so a restart never skips a block range; re-scanning one is harmless
//   (the unique key makes crediting idempotent).
// - Only blocks with enough confirmations are scanned: a reorg shallower than the confirmation count
//   cannot remove a credited transfer.
// - One instance at a time: a lease on the cursor row (lease_owner, lease_until).
// - Transfers from wallets not linked to any account are left alone; they stay claimable by submission
//   once their sender links the wallet.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Hex, parseAbiItem } from 'viem';
import { one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import type { BackgroundJob } from '../../jobs/runner.js';
import { accountsOfWallets } from '../auth/index.js';
import { chainUnavailable, type ReadyChain, readyChain } from '../chain/index.js';
import { AlreadyCredited, creditDeposit } from './credit.js';
import { depositTransfers, fetchReceipt, type IncomingTransfer } from './verify.js';

const CURSOR = 'deposit-watcher';
/** Blocks per eth_getLogs call (public RPCs cap the range). */
const MAX_RANGE = 2_000n;
/** On first start, look back this many blocks (a fresh devnet chain is scanned from block 0). */
const FIRST_LOOKBACK = 10_000n;
const LEASE_SECONDS = 60;
const TRANSFER_EVENT = parseAbiItem(
  'event Transfer(address indexed from, address indexed to, uint256 value)',
);

async function takeLease(
  deps: AppDeps,
  runner: string,
  chainId: number,
  start: bigint,
): Promise<bigint | undefined> {
  await deps.db.orm.execute(
    sql`INSERT INTO chain_cursors (name, chain_id, block_number) VALUES (${CURSOR}, ${chainId}, ${start})
        ON CONFLICT DO NOTHING`,
  );
  const row = await one<{ block_number: bigint }>(
    deps.db.orm,
    sql`UPDATE chain_cursors SET lease_owner = ${runner},
               lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
        WHERE name = ${CURSOR} AND chain_id = ${chainId}
          AND (lease_owner IS NULL OR lease_owner = ${runner} OR lease_until < now())
        RETURNING block_number`,
  );
  return row ? BigInt(row.block_number) : undefined;
}

async function advance(deps: AppDeps, runner: string, chainId: number, block: bigint, release: boolean) {
  await deps.db.orm.execute(
    sql`UPDATE chain_cursors SET block_number = ${block}, updated_at = now(),
               lease_until = CASE WHEN ${release}::boolean THEN NULL ELSE lease_until END,
               lease_owner = CASE WHEN ${release}::boolean THEN NULL ELSE lease_owner END
        WHERE name = ${CURSOR} AND chain_id = ${chainId} AND lease_owner = ${runner}`,
  );
}

/**
 * One pass: scans confirmed blocks after the cursor and credits what it finds. Returns the number of
 * deposits credited. Does nothing when another instance holds the lease.
 */
export async function scanDeposits(deps: AppDeps): Promise<number> {
  const chain = readyChain(deps.chain);
  let head: bigint;
  try {
    head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  } catch {
    throw chainUnavailable();
  }
  const confirmedUpTo = head - BigInt(chain.confirmations) + 1n;
  if (confirmedUpTo < 0n) return 0;
  const start = confirmedUpTo > FIRST_LOOKBACK ? confirmedUpTo - FIRST_LOOKBACK : -1n;
  // A new lease holder id per pass: the lease is released at the end of it.
  const runner = randomUUID();
  const leased = await takeLease(deps, runner, chain.chainId, start);
  if (leased === undefined) return 0;
  let cursor: bigint = leased;
  let credited = 0;
  try {
    while (cursor < confirmedUpTo) {
      const from: bigint = cursor + 1n;
      const to: bigint = from + MAX_RANGE - 1n < confirmedUpTo ? from + MAX_RANGE - 1n : confirmedUpTo;
      credited += await scanRange(deps, chain, from, to);
      cursor = to;
      await advance(deps, runner, chain.chainId, cursor, false);
    }
  } finally {
    await advance(deps, runner, chain.chainId, cursor, true);
  }
  return credited;
}

async function scanRange(deps: AppDeps, chain: ReadyChain, from: bigint, to: bigint): Promise<number> {
  let logs: { transactionHash: Hex | null }[];
  try {
    logs = await chain.publicClient.getLogs({
      address: chain.usdcAddress,
      event: TRANSFER_EVENT,
      args: { to: chain.platformWallet },
      fromBlock: from,
      toBlock: to,
    });
  } catch {
    throw chainUnavailable();
  }
  const hashes = [...new Set(logs.map((l) => l.transactionHash).filter((h): h is Hex => h !== null))];
  let credited = 0;
  for (const hash of hashes) {
    // The receipt, not the log alone: the same rules as a submission (sender, EIP-3009, status).
    const receipt = await fetchReceipt(chain, hash);
    if (!receipt) continue;
    const facts = depositTransfers(chain, receipt);
    const owners = await accountsOfWallets(
      deps.db.orm,
      facts.transfers.map((t) => t.from),
    );
    const byAccount = new Map<string, IncomingTransfer[]>();
    for (const t of facts.transfers) {
      const account = owners.get(t.from);
      if (account) byAccount.set(account, [...(byAccount.get(account) ?? []), t]);
    }
    for (const [accountId, transfers] of byAccount) {
      try {
        await creditDeposit(deps, {
          accountId,
          txHash: facts.txHash,
          blockNumber: facts.blockNumber,
          transfers,
          source: 'watcher',
        });
        credited++;
      } catch (err) {
        if (!(err instanceof AlreadyCredited)) throw err;
      }
    }
  }
  return credited;
}

export const depositWatcherJob: BackgroundJob = {
  name: 'deposit-watcher',
  intervalMs: 5_000,
  async run(deps) {
    if (!deps.config.chain.depositWatch || !deps.chain.publicClient) return 0;
    return scanDeposits(deps);
  },
};
