// The supported networks (docs/deposits.md). USDC has 6 decimals everywhere: 1 atomic unit = 1 credit.
import type { SvcEnv } from '../../config.js';

export interface NetworkInfo {
  /** CAIP-2 id, e.g. `eip155:8453`. */
  network: string;
  name: string;
  chainId: number;
  /** The canonical USDC contract (undefined in devnet: ours is deployed at start). */
  usdcAddress: string | undefined;
  /** EIP-712 domain of the USDC contract (what EIP-3009 / x402 signatures are made against). */
  usdcDomain: { name: string; version: string };
}

export const BASE: NetworkInfo = {
  network: 'eip155:8453',
  name: 'Base',
  chainId: 8453,
  usdcAddress: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  usdcDomain: { name: 'USD Coin', version: '2' },
};

export const BASE_SEPOLIA: NetworkInfo = {
  network: 'eip155:84532',
  name: 'Base Sepolia',
  chainId: 84532,
  usdcAddress: '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
  usdcDomain: { name: 'USDC', version: '2' },
};

/** Our test USDC is deployed with Base's domain name and version, so clients sign the same shape. */
export const DEVNET: NetworkInfo = {
  network: 'eip155:31337',
  name: 'Devnet',
  chainId: 31337,
  usdcAddress: undefined,
  usdcDomain: { name: 'USD Coin', version: '2' },
};

/** The network for the configured environment and chain id (a custom chain id keeps the env's domain). */
export function networkFor(env: SvcEnv, chainId: number): NetworkInfo {
  const base = env === 'production' ? BASE : env === 'testnet' ? BASE_SEPOLIA : DEVNET;
  if (base.chainId === chainId) return base;
  return { ...base, network: `eip155:${chainId}`, chainId, usdcAddress: undefined };
}

/** docs/deposits.md: the minimum wallet deposit, in credits (= USDC atomic units). */
export const MIN_DEPOSIT_CREDITS = 5_000_000n;
