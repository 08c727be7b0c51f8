// Per-app state of the auth module that must outlive a request: the identity provider's key set (jose
// caches and refreshes it), the cache of verified wallet signatures and the key-hash -> key mapping of
// paid execution. buildApp() creates it once (createAuthRuntime) and hangs it on the app as `app.auth`,
// so two apps in one process never share it.
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import type { AppDeps } from '../../deps.js';
import { BoundedMap } from '../../lib/bounded-map.js';

/** Verified wallet signatures: cache key -> nonce expiry (ms). Bounded; the oldest entry goes first. */
export class VerifiedSignatureCache {
  private readonly entries: BoundedMap<string, number>;
  constructor(maxEntries = 10_000) {
    this.entries = new BoundedMap(maxEntries);
  }

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
    this.entries.set(key, expiresAtMs);
  }
}

/** Bounded: beyond this many keys the oldest mappings are dropped (they are re-read on next use). */
const KEY_MAPPING_CACHE_SIZE = 100_000;

/** The immutable part of a key: which key row and account a key hash names (auth/caller.ts). */
export interface KeyMapping {
  keyId: string;
  accountId: string;
  /** When `last_used_at` was last known to be written (ms), to keep the once-a-minute write. */
  lastUsedMs: number;
}

export interface AuthRuntime {
  /** The external identity provider's keys; undefined when SVC_AUTH_JWKS_URL is not set. */
  jwks: JWTVerifyGetKey | undefined;
  signatures: VerifiedSignatureCache;
  /** Key hash -> KeyMapping, for paid execution's cached callers. */
  keyMappings: BoundedMap<string, KeyMapping>;
}

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthRuntime;
  }
}

/** What request authentication needs from its app: the adapters and the auth state (a FastifyInstance is one). */
export interface AuthContext {
  deps: AppDeps;
  auth: AuthRuntime;
}

/** Built once per app by buildApp() (`app.auth`); nothing in it needs closing. */
export function createAuthRuntime(deps: AppDeps): AuthRuntime {
  const { jwksUrl } = deps.config.auth;
  return {
    jwks: jwksUrl ? createRemoteJWKSet(new URL(jwksUrl)) : undefined,
    signatures: new VerifiedSignatureCache(),
    keyMappings: new BoundedMap(KEY_MAPPING_CACHE_SIZE),
  };
}
