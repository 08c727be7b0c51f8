// Turns request headers into a caller: anonymous, wallet-identified or authenticated (docs/auth.md).
// Resolved once per request in an onRequest hook; guards and the rate limiter read `request.caller`.
//
// Cost on the hot path: one indexed query per presented credential (an API key by its hash; a session's
// account by id; a signed wallet's account by address, the signature itself cached until its nonce
// expires). Key revocation and account status are never cached, so a revocation or a suspension is seen
// by the next request on every instance. `last_used_at` is written at most once a minute per key.
//
// One exception, for paid execution only (routes with `config.authInDebit`): the key hash → (key id,
// account id) mapping never changes, so it is cached in-process once a key has been resolved; such a
// request skips the lookup query and gets a caller marked `authInDebit`. The checks that can change
// (`revoked_at IS NULL`, account `status = 'active'`) then run inside the debit statement itself, atomic
// with the debit (src/modules/ledger/calls.ts), and any answer given before that debit first re-runs the
// full lookup (`verifyDeferredCaller`), so the errors are exactly those of the full path.
import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { one, toDate } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import type { Caller, CredentialKind } from '../../http/caller.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { AccountRef, AccountStatus } from './accounts.js';
import type { AuthContext } from './runtime.js';
import { looksLikeJwt, resolveSession } from './sessions.js';
import { resolveWalletSignature } from './wallet-signin.js';

export type { Caller, CredentialKind } from '../../http/caller.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's handler checks key revocation and account status atomically with its own write (the
     * paid-execute debit), so a cached key mapping may stand in for the lookup query (see above).
     */
    authInDebit?: boolean;
  }
}

const API_KEY_PATTERN = /^svc_sk_[0-9A-Za-z]{32,128}$/;
const WALLET_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export function walletHeader(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-svc-wallet'];
  if (typeof raw !== 'string' || !WALLET_PATTERN.test(raw)) return undefined;
  return raw.toLowerCase();
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return typeof v === 'string' ? v.trim() : undefined;
};

interface KeyRow {
  key_id: string;
  account_id: string;
  status: AccountStatus;
  wallet_address: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  has_policy: boolean;
  expires_at: string | null;
}

/** Keeps `last_used_at` current without a write per request: at most one write per key per minute. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Writes `last_used_at` unless it was written less than a minute ago; returns when it is now known. */
async function touchLastUsed(deps: AppDeps, keyId: string, lastUsedMs: number): Promise<number> {
  const now = deps.clock.now();
  if (now.getTime() - lastUsedMs <= LAST_USED_WRITE_INTERVAL_MS) return lastUsedMs;
  // Conditional, so instances racing on the same key write it once.
  const cutoff = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS).toISOString();
  await deps.db.orm.execute(
    sql`UPDATE api_keys SET last_used_at = ${now.toISOString()}::timestamptz
        WHERE id = ${keyId} AND revoked_at IS NULL
          AND (last_used_at IS NULL OR last_used_at < ${cutoff}::timestamptz)`,
  );
  return now.getTime();
}

export async function resolveApiKey({ deps, auth }: AuthContext, key: string): Promise<KeyRow | undefined> {
  if (!API_KEY_PATTERN.test(key)) return undefined;
  // Lookup by SHA-256 of the key: the comparison happens on a hash, so timing reveals nothing of the key.
  const hash = sha256Hex(key);
  const row = await one<KeyRow>(
    deps.db.orm,
    sql`SELECT k.id AS key_id, k.account_id, a.status, a.wallet_address, k.revoked_at, k.last_used_at,
               k.has_policy, k.expires_at
        FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${hash}`,
  );
  if (!row || row.revoked_at) return undefined;
  // A key past its policy's expiry is refused like a revoked one, to the second (the paid debit checks
  // it again against its own clock reading, for callers from the cached mapping).
  if (row.expires_at && toDate(row.expires_at) <= deps.clock.now()) return undefined;
  const lastUsedMs = await touchLastUsed(
    deps,
    row.key_id,
    row.last_used_at ? toDate(row.last_used_at).getTime() : Number.NEGATIVE_INFINITY,
  );
  auth.keyMappings.set(hash, { keyId: row.key_id, accountId: row.account_id, lastUsedMs });
  return row;
}

/**
 * For routes with `config.authInDebit`: the caller from the cached key mapping, without a query, when the
 * request presents exactly one credential, an API key already resolved on this instance. Otherwise
 * undefined (take resolveCaller). Revocation and status are NOT checked here (see the header comment).
 */
export async function cachedKeyCaller(
  { deps, auth }: AuthContext,
  request: FastifyRequest,
): Promise<Caller | undefined> {
  if (request.headers['x-svc-signature'] !== undefined || request.headers['x-svc-nonce'] !== undefined) {
    return undefined;
  }
  const apiKey = header(request, 'x-svc-api-key');
  const authorization = header(request, 'authorization');
  let key: string | undefined;
  if (apiKey !== undefined && authorization === undefined) key = apiKey;
  else if (apiKey === undefined && authorization !== undefined) {
    const m = /^Bearer\s+(svc_sk_\S+)$/i.exec(authorization);
    key = m?.[1];
  }
  if (key === undefined || !API_KEY_PATTERN.test(key)) return undefined;
  const hash = sha256Hex(key);
  const mapping = auth.keyMappings.get(hash);
  if (!mapping) return undefined;
  mapping.lastUsedMs = await touchLastUsed(deps, mapping.keyId, mapping.lastUsedMs);
  return {
    kind: 'account',
    ip: request.ip,
    accountId: mapping.accountId,
    status: 'active',
    credential: 'api_key',
    keyId: mapping.keyId,
    authInDebit: true,
  };
}

/**
 * The full lookup for a caller that came from the cached mapping, before it is answered anything the
 * debit did not decide (validation errors, 404s, rate limits): a revoked key or a suspended account
 * gets its 401/403 exactly as on the full path. Other callers are returned as they are.
 */
export async function verifyDeferredCaller(ctx: AuthContext, request: FastifyRequest): Promise<Caller> {
  const caller = request.caller;
  if (caller.kind !== 'account' || !caller.authInDebit) return caller;
  const verified = await resolveCaller(ctx, request);
  Object.defineProperty(request, 'caller', { value: verified, writable: true, configurable: true });
  return verified;
}

interface Resolved {
  account: AccountRef;
  credential: CredentialKind;
  keyId?: string;
  keyHasPolicy?: true;
  wallet?: string;
}

type Attempt = Resolved | { invalid: string };

async function viaKey(ctx: AuthContext, key: string): Promise<Attempt> {
  const row = await resolveApiKey(ctx, key);
  if (!row) return { invalid: 'unknown, malformed, revoked or expired API key' };
  return {
    account: { id: row.account_id, status: row.status, wallet_address: row.wallet_address },
    credential: 'api_key',
    keyId: row.key_id,
    ...(row.has_policy ? { keyHasPolicy: true as const } : {}),
  };
}

async function viaAuthorization(ctx: AuthContext, value: string): Promise<Attempt> {
  const m = /^Bearer\s+(\S+)$/i.exec(value);
  const token = m?.[1];
  if (!token) return { invalid: 'unsupported Authorization header' };
  if (token.startsWith('svc_sk_')) return viaKey(ctx, token);
  if (!looksLikeJwt(token)) return { invalid: 'unrecognised bearer token' };
  const account = await resolveSession(ctx, token);
  return account ? { account, credential: 'session' } : { invalid: 'invalid or expired session token' };
}

async function viaWalletSignature(
  ctx: AuthContext,
  wallet: string | undefined,
  signature: string | undefined,
  nonce: string | undefined,
): Promise<Attempt> {
  if (!wallet || !signature || !nonce) {
    return { invalid: 'a wallet signature needs X-Svc-Wallet, X-Svc-Signature and X-Svc-Nonce' };
  }
  const account = await resolveWalletSignature(ctx, wallet, signature, nonce);
  return account
    ? { account, credential: 'wallet_signature', wallet }
    : { invalid: 'invalid wallet signature, or unknown, foreign or expired nonce' };
}

/**
 * Every credential presented is checked; all must be valid and name the same account (an API key and a
 * session of different accounts is refused, not resolved by precedence).
 */
export async function resolveCaller(ctx: AuthContext, request: FastifyRequest): Promise<Caller> {
  const ip = request.ip;
  const wallet = walletHeader(request);
  const apiKey = header(request, 'x-svc-api-key');
  const authorization = header(request, 'authorization');
  const signature = header(request, 'x-svc-signature');
  const nonce = header(request, 'x-svc-nonce');

  const attempts: Attempt[] = [];
  if (apiKey !== undefined) attempts.push(await viaKey(ctx, apiKey));
  if (authorization !== undefined) attempts.push(await viaAuthorization(ctx, authorization));
  if (signature !== undefined || nonce !== undefined) {
    attempts.push(await viaWalletSignature(ctx, wallet, signature, nonce));
  }

  if (attempts.length === 0) return wallet ? { kind: 'wallet', ip, wallet } : { kind: 'anonymous', ip };
  const invalid = (reason: string): Caller => ({
    kind: 'invalid',
    ip,
    ...(wallet ? { wallet } : {}),
    reason,
  });
  const resolved: Resolved[] = [];
  for (const a of attempts) {
    if ('invalid' in a) return invalid(a.invalid);
    resolved.push(a);
  }
  const [first] = resolved as [Resolved, ...Resolved[]];
  if (resolved.some((r) => r.account.id !== first.account.id)) {
    return invalid('credentials of different accounts');
  }
  const keyId = resolved.find((r) => r.keyId)?.keyId;
  const keyHasPolicy = resolved.some((r) => r.keyHasPolicy);
  const signedWallet = resolved.find((r) => r.wallet)?.wallet;
  const accountWallet = signedWallet ?? first.account.wallet_address ?? undefined;
  return {
    kind: 'account',
    ip,
    accountId: first.account.id,
    status: first.account.status,
    credential: first.credential,
    ...(keyId ? { keyId } : {}),
    ...(keyHasPolicy ? { keyHasPolicy: true as const } : {}),
    ...(accountWallet ? { wallet: accountWallet } : {}),
  };
}
