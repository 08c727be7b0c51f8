// Turns request headers into a caller: anonymous, wallet-identified or authenticated (DESIGN.md section 3).
// Resolved once per request in an onRequest hook; guards and the rate limiter read `request.caller`.
import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { one, toDate } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { sha256Hex } from '../../lib/secrets.js';

export type CredentialKind = 'api_key' | 'session' | 'wallet_signature';

export type Caller =
  | { kind: 'anonymous'; ip: string }
  /** `X-Svc-Wallet` without a signature: identifies for rate limiting only, never grants account access. */
  | { kind: 'wallet'; ip: string; wallet: string }
  | {
      kind: 'account';
      ip: string;
      accountId: string;
      status: 'active' | 'suspended' | 'closed';
      credential: CredentialKind;
      /** The API key used, when credential = api_key. */
      keyId?: string;
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

function bearer(request: FastifyRequest): string | undefined {
  const h = request.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m?.[1];
}

interface KeyRow {
  key_id: string;
  account_id: string;
  status: 'active' | 'suspended' | 'closed';
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
    sql`SELECT k.id AS key_id, k.account_id, a.status, k.revoked_at, k.last_used_at
        FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${sha256Hex(key)}`,
  );
  if (!row || row.revoked_at) return undefined;
  const now = deps.clock.now();
  if (!row.last_used_at || now.getTime() - toDate(row.last_used_at).getTime() > LAST_USED_WRITE_INTERVAL_MS) {
    await deps.db.orm.execute(
      sql`UPDATE api_keys SET last_used_at = ${now.toISOString()} WHERE id = ${row.key_id}`,
    );
  }
  return row;
}

export async function resolveCaller(deps: AppDeps, request: FastifyRequest): Promise<Caller> {
  const ip = request.ip;
  const wallet = walletHeader(request);
  const headerKey = request.headers['x-svc-api-key'];
  const token = bearer(request);
  const apiKey = typeof headerKey === 'string' ? headerKey : token?.startsWith('svc_sk_') ? token : undefined;

  if (typeof headerKey === 'string' || token !== undefined) {
    if (apiKey) {
      const row = await resolveApiKey(deps, apiKey);
      if (!row)
        return { kind: 'invalid', ip, ...(wallet ? { wallet } : {}), reason: 'unknown or revoked API key' };
      return {
        kind: 'account',
        ip,
        accountId: row.account_id,
        status: row.status,
        credential: 'api_key',
        keyId: row.key_id,
      };
    }
    return { kind: 'invalid', ip, ...(wallet ? { wallet } : {}), reason: 'unsupported bearer token' };
  }
  if (wallet) return { kind: 'wallet', ip, wallet };
  return { kind: 'anonymous', ip };
}
