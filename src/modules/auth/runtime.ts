// Per-app state of the auth module that must outlive a request: the identity provider's key set (jose
// caches and refreshes it), the chain client for contract-wallet checks, and the cache of verified wallet
// signatures. Keyed by the deps object so two app instances in one process never share it.
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { createPublicClient, http, type PublicClient } from 'viem';
import type { AppDeps } from '../../deps.js';

/** Verified wallet signatures: cache key -> nonce expiry (ms). Bounded; the oldest entry goes first. */
export class VerifiedSignatureCache {
  private readonly entries = new Map<string, number>();
  constructor(private readonly maxEntries = 10_000) {}

  /** True while the entry exists and its nonce has not expired at `nowMs`. */
  has(key: string, nowMs: number): boolean {
    const expiresAt = this.entries.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt <= nowMs) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  add(key: string, expiresAtMs: number) {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, expiresAtMs);
  }
}

export interface AuthRuntime {
  /** The external identity provider's keys; undefined when SVC_AUTH_JWKS_URL is not set. */
  jwks: JWTVerifyGetKey | undefined;
  /** JSON-RPC client for EIP-1271 checks; undefined when SVC_CHAIN_RPC_URL is not set. */
  chain: PublicClient | undefined;
  signatures: VerifiedSignatureCache;
  /** Session signing key (HS256): the bytes of the session secret. */
  sessionKey: Uint8Array;
}

const runtimes = new WeakMap<AppDeps, AuthRuntime>();

export function authRuntime(deps: AppDeps): AuthRuntime {
  let rt = runtimes.get(deps);
  if (!rt) {
    const { auth, chain } = deps.config;
    rt = {
      jwks: auth.jwksUrl ? createRemoteJWKSet(new URL(auth.jwksUrl)) : undefined,
      chain: chain.rpcUrl ? createPublicClient({ transport: http(chain.rpcUrl) }) : undefined,
      signatures: new VerifiedSignatureCache(),
      sessionKey: new TextEncoder().encode(deps.secrets.sessionSecret),
    };
    runtimes.set(deps, rt);
  }
  return rt;
}
