// The chain adapter (plumbing): viem clients for the configured network, built from config alone.
// Per-app chain state (docs/deposits.md): a viem public client for the configured RPC, the platform
// wallet's signer when its key is configured, and the mapping of RPC failures to 503 SVC-SYS-002.
import {
  type Address,
  BaseError,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type PrivateKeyAccount,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Config } from '../../config.js';
import { AppError } from '../../errors/catalogue.js';
import { type NetworkInfo, networkFor } from './networks.js';

/** Seconds a client should wait before retrying after a chain RPC failure. */
export const RPC_RETRY_AFTER_SECONDS = 5;

export interface ChainRuntime {
  network: NetworkInfo;
  chainId: number;
  rpcUrl: string | undefined;
  usdcAddress: Address | undefined;
  platformWallet: Address | undefined;
  confirmations: number;
  /** Undefined without SVC_CHAIN_RPC_URL (and no self-started devnet chain). */
  publicClient: PublicClient | undefined;
  /** The platform key's signer (payouts, x402 settlement, faucet); undefined without a key. */
  platformAccount: PrivateKeyAccount | undefined;
  walletClient: WalletClient | undefined;
}

/** A runtime whose RPC, USDC and platform wallet are all known. */
export interface ReadyChain extends ChainRuntime {
  rpcUrl: string;
  usdcAddress: Address;
  platformWallet: Address;
  publicClient: PublicClient;
}

export function createChainRuntime(config: Config): ChainRuntime {
  const c = config.chain;
  const network = networkFor(config.env, c.chainId);
  const usdc = c.usdcAddress ?? network.usdcAddress;
  const account = c.platformWalletKey ? privateKeyToAccount(c.platformWalletKey as Hex) : undefined;
  const platformWallet = c.platformWallet ?? account?.address.toLowerCase();
  if (account && c.platformWallet && account.address.toLowerCase() !== c.platformWallet) {
    // Checked in the runtime because only here is the key turned into its address.
    throw new Error('SVC_PLATFORM_WALLET_KEY is not the key of SVC_PLATFORM_WALLET');
  }
  // One quick retry only: a dead RPC must turn into a 503 within seconds, not a hanging request.
  const transport = c.rpcUrl
    ? http(c.rpcUrl, { retryCount: 1, retryDelay: 200, timeout: 10_000 })
    : undefined;
  const chain = {
    id: c.chainId,
    name: network.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: c.rpcUrl ? [c.rpcUrl] : [] } },
  };
  return {
    network,
    chainId: c.chainId,
    rpcUrl: c.rpcUrl,
    usdcAddress: usdc ? getAddress(usdc) : undefined,
    platformWallet: platformWallet ? getAddress(platformWallet) : undefined,
    confirmations: c.confirmations,
    publicClient: transport ? createPublicClient({ chain, transport, pollingInterval: 250 }) : undefined,
    platformAccount: account,
    walletClient: transport && account ? createWalletClient({ chain, transport, account }) : undefined,
  };
}

/** The runtime if the chain is fully configured, else 503 SVC-SYS-002 (nothing can be verified). */
export function readyChain(rt: ChainRuntime): ReadyChain {
  if (!rt.rpcUrl || !rt.publicClient || !rt.usdcAddress || !rt.platformWallet) {
    throw new AppError('SVC-SYS-002', 'The chain is not configured on this service', {}, retryAfter());
  }
  return rt as ReadyChain;
}

const retryAfter = () => ({ 'Retry-After': String(RPC_RETRY_AFTER_SECONDS) });

/** The 503 for an RPC failure; the cause is logged by the caller, never returned. */
export function chainUnavailable(): AppError {
  return new AppError('SVC-SYS-002', 'The chain RPC is unreachable; retry later', {}, retryAfter());
}

/** Runs an RPC read; any failure that is not our own AppError becomes 503 SVC-SYS-002. */
export async function rpc<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw chainUnavailable();
  }
}

/** True when a viem error is the node saying "no such receipt/transaction" (not a transport failure). */
export function isNotFound(err: unknown): boolean {
  return (
    err instanceof BaseError &&
    ['TransactionReceiptNotFoundError', 'TransactionNotFoundError'].includes(err.name)
  );
}
