// Reading a deposit from the chain (docs/deposits.md). Every fact comes from the receipt the node
// returns for the hash, never from the request: status, the USDC contract that emitted each Transfer log,
// its recipient, its sender and its amount.
import { type Address, decodeEventLog, type Hex, type TransactionReceipt, toEventSelector } from 'viem';
import { chainUnavailable, isNotFound, type ReadyChain, usdcAbi } from '../chain/index.js';

const TRANSFER = toEventSelector('Transfer(address,address,uint256)');
const AUTHORIZATION_USED = toEventSelector('AuthorizationUsed(address,bytes32)');

/** One USDC Transfer log to the platform wallet. */
export interface IncomingTransfer {
  logIndex: number;
  from: string;
  amount: bigint;
}

export interface ReceiptFacts {
  txHash: string;
  blockNumber: bigint;
  succeeded: boolean;
  /** USDC Transfer logs to the platform wallet that can be deposits (see depositTransfers). */
  transfers: IncomingTransfer[];
}

/** The receipt, undefined when the node knows no receipt for the hash; 503 when the RPC fails. */
export async function fetchReceipt(chain: ReadyChain, txHash: Hex): Promise<TransactionReceipt | undefined> {
  try {
    return await chain.publicClient.getTransactionReceipt({ hash: txHash });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw chainUnavailable();
  }
}

/**
 * The Transfer logs of `receipt` that count as deposits: emitted by the configured USDC contract (a log of
 * any other token, however named, is ignored), to the platform wallet, in a transaction that the platform
 * wallet did not send itself (faucet, payouts, its own x402 settlements), and not an EIP-3009 authorized
 * transfer (a log paired with AuthorizationUsed of the same payer): those are x402 payments, settled by us
 * or by a facilitator, and are never claimable as deposits.
 */
export function depositTransfers(chain: ReadyChain, receipt: TransactionReceipt): ReceiptFacts {
  const usdc = chain.usdcAddress.toLowerCase();
  const platform = chain.platformWallet.toLowerCase();
  const facts: ReceiptFacts = {
    txHash: receipt.transactionHash.toLowerCase(),
    blockNumber: receipt.blockNumber,
    succeeded: receipt.status === 'success',
    transfers: [],
  };
  if (!facts.succeeded || receipt.from.toLowerCase() === platform) return facts;
  const authorizers = new Set<string>();
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() === usdc && log.topics[0] === AUTHORIZATION_USED && log.topics[1]) {
      authorizers.add(`0x${log.topics[1].slice(26)}`.toLowerCase());
    }
  }
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== usdc || log.topics[0] !== TRANSFER || log.topics.length !== 3) continue;
    const decoded = decodeEventLog({
      abi: usdcAbi,
      eventName: 'Transfer',
      data: log.data,
      topics: log.topics,
    });
    const to = (decoded.args.to as Address).toLowerCase();
    const from = (decoded.args.from as Address).toLowerCase();
    if (to !== platform || authorizers.has(from)) continue;
    facts.transfers.push({ logIndex: log.logIndex, from, amount: decoded.args.value });
  }
  return facts;
}

/** Confirmations of a receipt: head block − receipt block + 1 (docs/deposits.md). */
export async function confirmationsOf(chain: ReadyChain, blockNumber: bigint): Promise<bigint> {
  let head: bigint;
  try {
    head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  } catch {
    throw chainUnavailable();
  }
  return head >= blockNumber ? head - blockNumber + 1n : 0n;
}
