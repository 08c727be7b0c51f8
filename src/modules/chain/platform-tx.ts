// The one nonce allocator and sender for the platform key (docs/deposits.md), shared by the faucet,
// x402 settlement and payouts on every instance:
// - the nonce is taken under a row lock in the database (`platform_nonces ... FOR UPDATE`);
// - the signed transaction (raw bytes, hash, nonce) is STORED in the same database transaction, before
//   anything is broadcast; a crash after that can only lead to the same bytes being broadcast again;
// - `(purpose, reference)` is the caller's idempotency key: asking twice returns the first transaction;
// - a stuck transaction is re-signed with the SAME nonce and higher fees (platformTransactionsJob), so
//   whichever version is mined, the payment happens once. A nonce is never given to another purpose.
import { type SQL, sql } from 'drizzle-orm';
import { type Address, BaseError, type Hex, keccak256 } from 'viem';
import { type ChainRuntime, chainUnavailable, isNotFound, readyChain } from '../../adapters/chain/runtime.js';
import { isUniqueViolation, one, rows } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import type { BackgroundJob } from '../../jobs/runner.js';
import { crashPoint } from '../../lib/crash-point.js';
import { newId } from '../../lib/ids.js';

export interface PlatformTxRequest {
  /** What the transaction is for, e.g. `faucet`, `x402_settlement`, `payout`. */
  purpose: string;
  /** Unique within the purpose (payout id, authorization nonce...): the idempotency key. */
  reference: string;
  to: Address;
  data?: Hex;
  value?: bigint;
}

export type PlatformTxStatus = 'pending' | 'confirmed' | 'reverted' | 'dropped';

export interface PlatformTx {
  id: string;
  purpose: string;
  reference: string;
  nonce: bigint;
  /** The hash of the newest signed version (a replacement changes it). */
  txHash: Hex;
  status: PlatformTxStatus;
  blockNumber: bigint | null;
}

interface TxRow {
  id: string;
  chain_id: number;
  from_address: string;
  nonce: bigint;
  purpose: string;
  reference: string;
  to_address: string;
  data: string;
  value_wei: string;
  gas: bigint;
  status: PlatformTxStatus;
  tx_hash: string;
  raw_tx: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  block_number: bigint | null;
}

/** The platform key has no key configured: nothing can be signed. */
export class NoPlatformKey extends Error {}

/** The node refused the transaction before it got a nonce (e.g. it reverts in simulation). */
export class PlatformTxRejected extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

const toTx = (r: TxRow): PlatformTx => ({
  id: r.id,
  purpose: r.purpose,
  reference: r.reference,
  nonce: BigInt(r.nonce),
  txHash: r.tx_hash as Hex,
  status: r.status,
  blockNumber: r.block_number === null ? null : BigInt(r.block_number),
});

function signerOf(chain: ChainRuntime) {
  const ready = readyChain(chain);
  if (!chain.platformAccount || !chain.walletClient)
    throw new NoPlatformKey('no platform wallet key configured');
  return { ready, account: chain.platformAccount };
}

export async function findPlatformTransaction(deps: AppDeps, purpose: string, reference: string) {
  const row = await one<TxRow>(
    deps.db.orm,
    sql`SELECT * FROM platform_transactions WHERE purpose = ${purpose} AND reference = ${reference}`,
  );
  return row ? toTx(row) : undefined;
}

/**
 * Signs, stores and broadcasts one platform transaction; idempotent per (purpose, reference). Throws
 * PlatformTxRejected when the node says it would revert (no nonce is used then), 503 SVC-SYS-002 when
 * the RPC is down before anything was stored. Once stored, a broadcast failure is not an error: the
 * transaction stays `pending` and is broadcast again by platformTransactionsJob or the next call.
 */
export async function sendPlatformTransaction(deps: AppDeps, req: PlatformTxRequest): Promise<PlatformTx> {
  const { chain } = deps;
  const { ready, account } = signerOf(chain);
  const existing = await one<TxRow>(
    deps.db.orm,
    sql`SELECT * FROM platform_transactions WHERE purpose = ${req.purpose} AND reference = ${req.reference}`,
  );
  if (existing) {
    if (existing.status === 'pending') await broadcast(deps, existing.raw_tx as Hex);
    return toTx(existing);
  }
  const client = ready.publicClient;
  const value = req.value ?? 0n;
  const data = req.data ?? '0x';
  let gas: bigint;
  try {
    gas = await client.estimateGas({ account, to: req.to, data, value });
  } catch (err) {
    if (
      err instanceof BaseError &&
      err.walk((e) => (e as { name?: string }).name === 'ExecutionRevertedError')
    ) {
      throw new PlatformTxRejected(err.shortMessage, err);
    }
    throw chainUnavailable();
  }
  const [fees, minedCount] = await Promise.all([
    client.estimateFeesPerGas().catch(() => {
      throw chainUnavailable();
    }),
    client.getTransactionCount({ address: account.address, blockTag: 'latest' }).catch(() => {
      throw chainUnavailable();
    }),
  ]);
  const from = account.address.toLowerCase();
  const id = newId('ptx');
  let row: TxRow | undefined;
  try {
    row = await deps.db.orm.transaction(async (tx) => {
      await tx.execute(
        sql`INSERT INTO platform_nonces (chain_id, address, next_nonce) VALUES (${chain.chainId}, ${from}, ${minedCount})
            ON CONFLICT DO NOTHING`,
      );
      const locked = await one<{ next_nonce: bigint }>(
        tx,
        sql`SELECT next_nonce FROM platform_nonces WHERE chain_id = ${chain.chainId} AND address = ${from} FOR UPDATE`,
      );
      // Nonces mined by someone else with this key (an operator) can never be reused: skip past them.
      const nonce =
        BigInt(locked?.next_nonce ?? 0n) > BigInt(minedCount)
          ? BigInt(locked?.next_nonce ?? 0n)
          : BigInt(minedCount);
      const gasLimit = (gas * 12n) / 10n;
      const raw = await account.signTransaction({
        type: 'eip1559',
        chainId: chain.chainId,
        nonce: Number(nonce),
        to: req.to,
        data,
        value,
        gas: gasLimit,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      const hash = keccak256(raw);
      const inserted = await one<TxRow>(
        tx,
        sql`INSERT INTO platform_transactions
              (id, chain_id, from_address, nonce, purpose, reference, to_address, data, value_wei, gas, status,
               tx_hash, raw_tx, max_fee_per_gas, max_priority_fee_per_gas)
            VALUES (${id}, ${chain.chainId}, ${from}, ${nonce}, ${req.purpose}, ${req.reference},
                    ${req.to.toLowerCase()}, ${data}, ${value.toString()}, ${gasLimit}, 'pending', ${hash}, ${raw},
                    ${fees.maxFeePerGas.toString()}, ${fees.maxPriorityFeePerGas.toString()})
            RETURNING *`,
      );
      await tx.execute(
        sql`INSERT INTO platform_transaction_attempts (tx_hash, transaction_id, raw_tx, max_fee_per_gas)
            VALUES (${hash}, ${id}, ${raw}, ${fees.maxFeePerGas.toString()})`,
      );
      await tx.execute(
        sql`UPDATE platform_nonces SET next_nonce = ${nonce + 1n}
            WHERE chain_id = ${chain.chainId} AND address = ${from}`,
      );
      return inserted;
    });
  } catch (err) {
    // Another instance stored the same (purpose, reference) first: theirs is the transaction.
    if (!isUniqueViolation(err)) throw err;
    const theirs = await findPlatformTransaction(deps, req.purpose, req.reference);
    if (!theirs) throw err;
    return theirs;
  }
  if (!row) throw new Error('platform transaction insert returned no row');
  crashPoint(deps.config, 'platform-tx:stored');
  await broadcast(deps, row.raw_tx as Hex);
  await deps.db.orm.execute(sql`UPDATE platform_transactions SET broadcast_at = now() WHERE id = ${row.id}`);
  return toTx(row);
}

/** Sends stored bytes; "already known" and "nonce too low" mean the node has (or had) them: fine. */
async function broadcast(deps: AppDeps, raw: Hex): Promise<boolean> {
  const client = deps.chain.publicClient;
  if (!client) return false;
  try {
    await client.sendRawTransaction({ serializedTransaction: raw });
    return true;
  } catch {
    // Known, replaced or mined: the receipt check settles it. Unreachable: the job broadcasts again.
    return false;
  }
}

/**
 * Looks for a receipt of any signed version of the transaction and records the outcome. Returns the
 * current state. `dropped`: the nonce was used by a transaction we never signed (only an operator using
 * the same key elsewhere can cause that) — logged loudly by the job, never retried with a new nonce.
 */
export async function refreshPlatformTransaction(deps: AppDeps, id: string): Promise<PlatformTx> {
  const row = await one<TxRow>(deps.db.orm, sql`SELECT * FROM platform_transactions WHERE id = ${id}`);
  if (!row) throw new Error(`platform transaction ${id} not found`);
  if (row.status !== 'pending') return toTx(row);
  const client = readyChain(deps.chain).publicClient;
  const attempts = await rows<{ tx_hash: string }>(
    deps.db.orm,
    sql`SELECT tx_hash FROM platform_transaction_attempts WHERE transaction_id = ${id} ORDER BY created_at DESC`,
  );
  const minedCount = await client.getTransactionCount({
    address: row.from_address as Address,
    blockTag: 'latest',
  });
  for (const a of attempts) {
    try {
      const receipt = await client.getTransactionReceipt({ hash: a.tx_hash as Hex });
      const status = receipt.status === 'success' ? 'confirmed' : 'reverted';
      const updated = await finish(
        deps,
        id,
        status,
        sql`, tx_hash = ${a.tx_hash}, block_number = ${receipt.blockNumber}`,
      );
      return toTx(updated ?? row);
    } catch (err) {
      if (!isNotFound(err)) throw chainUnavailable();
    }
  }
  if (BigInt(minedCount) > BigInt(row.nonce)) {
    const updated = await finish(deps, id, 'dropped', sql``);
    return toTx(updated ?? row);
  }
  return toTx(row);
}

/**
 * Records the end of a pending transaction and, in the same database transaction, runs the
 * `platform-tx.finished` hook, so the module that asked for it (payouts) records the outcome atomically.
 * Only the instance whose UPDATE moved the row out of `pending` runs the hook.
 */
async function finish(
  deps: AppDeps,
  id: string,
  status: 'confirmed' | 'reverted' | 'dropped',
  set: SQL,
): Promise<TxRow | undefined> {
  return deps.db.orm.transaction(async (tx) => {
    const updated = await one<TxRow>(
      tx,
      sql`UPDATE platform_transactions SET status = ${status}${set}, updated_at = now()
          WHERE id = ${id} AND status = 'pending' RETURNING *`,
    );
    if (updated) {
      await deps.hooks.run('platform-tx.finished', tx, {
        id,
        purpose: updated.purpose,
        reference: updated.reference,
        status,
        txHash: updated.tx_hash,
        blockNumber: updated.block_number === null ? null : BigInt(updated.block_number),
      });
    }
    return updated;
  });
}

/** Waits until the transaction is mined (confirmed or reverted) or `timeoutMs` passes. */
export async function waitForPlatformTransaction(
  deps: AppDeps,
  id: string,
  timeoutMs = 60_000,
): Promise<PlatformTx> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tx = await refreshPlatformTransaction(deps, id);
    if (tx.status !== 'pending' || Date.now() > deadline) return tx;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A pending transaction unmined after this long is re-signed with the same nonce and higher fees. */
export const STUCK_AFTER_MS = 60_000;

/**
 * Re-signs a stuck transaction with the same nonce, fees raised by 25% (nodes require >= 10% to replace),
 * stores the new version before broadcasting it. Both versions stay known; whichever is mined counts.
 */
export async function replaceStuckTransaction(deps: AppDeps, id: string): Promise<PlatformTx> {
  const { account } = signerOf(deps.chain);
  const signed = await deps.db.orm.transaction(async (tx) => {
    const row = await one<TxRow>(tx, sql`SELECT * FROM platform_transactions WHERE id = ${id} FOR UPDATE`);
    if (row?.status !== 'pending') return undefined;
    const maxFee = (BigInt(row.max_fee_per_gas) * 125n) / 100n;
    const priority = (BigInt(row.max_priority_fee_per_gas) * 125n) / 100n;
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: row.chain_id,
      nonce: Number(row.nonce),
      to: row.to_address as Address,
      data: row.data as Hex,
      value: BigInt(row.value_wei),
      gas: BigInt(row.gas),
      maxFeePerGas: maxFee,
      maxPriorityFeePerGas: priority,
    });
    const hash = keccak256(raw);
    await tx.execute(
      sql`INSERT INTO platform_transaction_attempts (tx_hash, transaction_id, raw_tx, max_fee_per_gas)
          VALUES (${hash}, ${id}, ${raw}, ${maxFee.toString()})`,
    );
    await tx.execute(
      sql`UPDATE platform_transactions SET tx_hash = ${hash}, raw_tx = ${raw}, max_fee_per_gas = ${maxFee.toString()},
                 max_priority_fee_per_gas = ${priority.toString()}, broadcast_at = now(), updated_at = now()
          WHERE id = ${id}`,
    );
    return raw;
  });
  if (signed) await broadcast(deps, signed);
  return refreshPlatformTransaction(deps, id);
}

/** Settles, rebroadcasts or replaces the platform's pending transactions (safe on N instances). */
export const platformTransactionsJob: BackgroundJob = {
  name: 'platform-transactions',
  intervalMs: 5_000,
  async run(deps) {
    if (!deps.chain.platformAccount || !deps.chain.publicClient) return 0;
    const pending = await rows<{ id: string; raw_tx: string; age_ms: number }>(
      deps.db.orm,
      sql`SELECT id, raw_tx, (extract(epoch FROM now() - coalesce(broadcast_at, created_at)) * 1000)::float8 AS age_ms
          FROM platform_transactions WHERE status = 'pending' AND chain_id = ${deps.chain.chainId}
          ORDER BY nonce LIMIT 50`,
    );
    let settled = 0;
    for (const p of pending) {
      const now = await refreshPlatformTransaction(deps, p.id);
      if (now.status !== 'pending') {
        settled++;
        continue;
      }
      if (Number(p.age_ms) > STUCK_AFTER_MS) await replaceStuckTransaction(deps, p.id);
      else await broadcast(deps, p.raw_tx as Hex);
    }
    return settled;
  },
};
