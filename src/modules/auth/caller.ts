// Turns request headers into a caller: anonymous, wallet-identified or authenticated (DESIGN.md section 3).
// Resolved once per request in an onRequest hook; guards and the rate limiter read `request.caller`.
//
// Cost on the hot path: one indexed query per presented credential (an API key by its hash; a session's
// account by id; a signed wallet's account by address, the signature itself cached until its nonce
// expires). Nothing about keys or account status is cached, so a revocation or a suspension is seen by
// the next request on every instance. `last_used_at` is written at most once a minute per key.
import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { one, toDate } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { AccountRef, AccountStatus } from './accounts.js';
import { looksLikeJwt, resolveSession } from './sessions.js';
import { resolveWalletSignature } from './wallet-signin.js';

export type CredentialKind = 'api_key' | 'session' | 'wallet_signature';

export type Caller =
  | { kind: 'anonymous'; ip: string }
  /** `X-Svc-Wallet` without a signature: identifies for rate limiting only, never grants account access. */
  | { kind: 'wallet'; ip: string; wallet: string }
  | {
      kind: 'account';
      ip: string;
      accountId: string;
      status: AccountStatus;
      credential: CredentialKind;
      /** The API key used, when credential = api_key. */
      keyId?: string;
      /** The signing wallet (wallet_signature), else the account's wallet if it has one. */
      wallet?: string;
    }
  /** Credentials were presented but are not valid; guarded routes answer 401 SVC-AUTH-001. */
  | { kind: 'invalid'; ip: string; wallet?: string; reason: string };

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
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
}

/** Keeps `last_used_at` current without a write per request: at most one write per key per minute. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export async function resolveApiKey(deps: AppDeps, key: string): Promise<KeyRow | undefined> {
  if (!API_KEY_PATTERN.test(key)) return undefined;
  // Lookup by SHA-256 of the key: the comparison happens on a hash, so timing reveals nothing of the key.
  const row = await one<KeyRow>(
    deps.db.orm,
    sql`SELECT k.id AS key_id, k.account_id, a.status, a.wallet_address, k.revoked_at, k.last_used_at
        FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${sha256Hex(key)}`,
  );
  if (!row || row.revoked_at) return undefined;
  const now = deps.clock.now();
  if (!row.last_used_at || now.getTime() - toDate(row.last_used_at).getTime() > LAST_USED_WRITE_INTERVAL_MS) {
    // Conditional, so instances racing on the same key write it once.
    const cutoff = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS).toISOString();
    await deps.db.orm.execute(
      sql`UPDATE api_keys SET last_used_at = ${now.toISOString()}::timestamptz
          WHERE id = ${row.key_id} AND (last_used_at IS NULL OR last_used_at < ${cutoff}::timestamptz)`,
    );
  }
  return row;
}

interface Resolved {
  account: AccountRef;
  credential: CredentialKind;
  keyId?: string;
  wallet?: string;
}

type Attempt = Resolved | { invalid: string };

async function viaKey(deps: AppDeps, key: string): Promise<Attempt> {
  const row = await resolveApiKey(deps, key);
  if (!row) return { invalid: 'unknown, malformed or revoked API key' };
  return {
    account: { id: row.account_id, status: row.status, wallet_address: row.wallet_address },
    credential: 'api_key',
    keyId: row.key_id,
  };
}

async function viaAuthorization(deps: AppDeps, value: string): Promise<Attempt> {
  const m = /^Bearer\s+(\S+)$/i.exec(value);
  const token = m?.[1];
  if (!token) return { invalid: 'unsupported Authorization header' };
  if (token.startsWith('svc_sk_')) return viaKey(deps, token);
  if (!looksLikeJwt(token)) return { invalid: 'unrecognised bearer token' };
  const account = await resolveSession(deps, token);
  return account ? { account, credential: 'session' } : { invalid: 'invalid or expired session token' };
}

async function viaWalletSignature(
  deps: AppDeps,
  wallet: string | undefined,
  signature: string | undefined,
  nonce: string | undefined,
): Promise<Attempt> {
  if (!wallet || !signature || !nonce) {
    return { invalid: 'a wallet signature needs X-Svc-Wallet, X-Svc-Signature and X-Svc-Nonce' };
  }
  const account = await resolveWalletSignature(deps, wallet, signature, nonce);
  return account
    ? { account, credential: 'wallet_signature', wallet }
    : { invalid: 'invalid wallet signature, or unknown, foreign or expired nonce' };
}

/**
 * Every credential presented is checked; all must be valid and name the same account (an API key and a
 * session of different accounts is refused, not resolved by precedence).
 */
export async function resolveCaller(deps: AppDeps, request: FastifyRequest): Promise<Caller> {
  const ip = request.ip;
  const wallet = walletHeader(request);
  const apiKey = header(request, 'x-svc-api-key');
  const authorization = header(request, 'authorization');
  const signature = header(request, 'x-svc-signature');
  const nonce = header(request, 'x-svc-nonce');

  const attempts: Attempt[] = [];
  if (apiKey !== undefined) attempts.push(await viaKey(deps, apiKey));
  if (authorization !== undefined) attempts.push(await viaAuthorization(deps, authorization));
  if (signature !== undefined || nonce !== undefined) {
    attempts.push(await viaWalletSignature(deps, wallet, signature, nonce));
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
  const signedWallet = resolved.find((r) => r.wallet)?.wallet;
  const accountWallet = signedWallet ?? first.account.wallet_address ?? undefined;
  return {
    kind: 'account',
    ip,
    accountId: first.account.id,
    status: first.account.status,
    credential: first.credential,
    ...(keyId ? { keyId } : {}),
    ...(accountWallet ? { wallet: accountWallet } : {}),
  };
}
