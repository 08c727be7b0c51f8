// Effective limits: the configured values (docs/ratelimit.md defaults) scaled by SVC_RATE_LIMIT_MULTIPLIER.
import type { Config } from '../../config.js';
import type { TrustTier } from './status.js';

export interface EffectiveLimits {
  windowSeconds: number;
  anonymous: number;
  wallet: Record<TrustTier, number>;
  walletPerIp: number;
  account: number;
  /** Endpoint-specific limits keyed by "METHOD /route/pattern" (docs/ratelimit.md). */
  endpoints: ReadonlyMap<string, number>;
  /** Successful payments needed for each tier. */
  thresholds: { established: number; trusted: number };
  trustTierCacheMs: number;
}

export function effectiveLimits(config: Config): EffectiveLimits {
  const rl = config.rateLimit;
  // Thresholds are not scaled: the multiplier exists to get limits out of the way of load tests.
  const scale = (n: number) => Math.max(1, Math.floor(n * config.rateLimitMultiplier));
  return {
    windowSeconds: rl.windowSeconds,
    anonymous: scale(rl.anonymous),
    wallet: {
      new: scale(rl.walletNew),
      established: scale(rl.walletEstablished),
      trusted: scale(rl.walletTrusted),
    },
    walletPerIp: scale(rl.walletPerIp),
    account: scale(rl.account),
    endpoints: new Map([
      ['GET /v1/wallet/balance', scale(rl.walletBalance)],
      ['POST /v1/wallet/deposit', scale(rl.walletDeposit)],
      ['GET /v1/wallet/history', scale(rl.walletHistory)],
      ['GET /v1/keys', scale(rl.keysList)],
      ['POST /v1/keys', scale(rl.keysCreate)],
    ]),
    thresholds: { established: rl.establishedPayments, trusted: rl.trustedPayments },
    trustTierCacheMs: rl.trustTierCacheSeconds * 1000,
  };
}

export function tierForPayments(payments: bigint, thresholds: EffectiveLimits['thresholds']): TrustTier {
  if (payments >= BigInt(thresholds.trusted)) return 'trusted';
  if (payments >= BigInt(thresholds.established)) return 'established';
  return 'new';
}
