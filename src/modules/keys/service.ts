// API keys: `svc_sk_` + 40 base62 chars (~238 bits). Only SHA-256 is stored; prefix = first 11 chars.
import { sql } from 'drizzle-orm';
import { type Executor, one, rows, toIso } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';
import { newId } from '../../lib/ids.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';

export interface CreatedApiKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  created_at: string;
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  status: 'active' | 'revoked';
  revoked_at: string | null;
}

export interface RevokedApiKey {
  id: string;
  status: 'revoked';
  revoked_at: string;
}

export async function createApiKey(ex: Executor, accountId: string, name: string): Promise<CreatedApiKey> {
  const key = `svc_sk_${randomBase62(40)}`;
  const id = newId('key');
  const prefix = key.slice(0, 11);
  const row = await one<{ created_at: string }>(
    ex,
    sql`INSERT INTO api_keys (id, account_id, name, prefix, key_hash)
        VALUES (${id}, ${accountId}, ${name}, ${prefix}, ${sha256Hex(key)}) RETURNING created_at`,
  );
  return { id, name, key, prefix, created_at: toIso(row?.created_at) };
}

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function view(row: KeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: toIso(row.created_at),
    last_used_at: row.last_used_at ? toIso(row.last_used_at) : null,
    status: row.revoked_at ? 'revoked' : 'active',
    revoked_at: row.revoked_at ? toIso(row.revoked_at) : null,
  };
}

/**
 * The account's keys, newest first, revoked ones included (with status and revoked_at); never the secret.
 * `after` is the id of the last key of the previous page (ids sort by creation time).
 */
export async function listApiKeys(
  ex: Executor,
  accountId: string,
  page: { limit: number; after?: string | undefined },
): Promise<{ keys: ApiKeyView[]; hasMore: boolean }> {
  const found = await rows<KeyRow>(
    ex,
    sql`SELECT id, name, prefix, created_at, last_used_at, revoked_at FROM api_keys
        WHERE account_id = ${accountId} ${page.after ? sql`AND id < ${page.after}` : sql``}
        ORDER BY id DESC LIMIT ${page.limit + 1}`,
  );
  return { keys: found.slice(0, page.limit).map(view), hasMore: found.length > page.limit };
}

/**
 * Revokes a key of the account: permanent, and effective on the next request on every instance (the
 * resolver reads `revoked_at` with every key lookup, and paid execute checks it inside its debit
 * statement; only the immutable key → account mapping is cached). Unknown key or another
 * account's key: 404 SVC-AUTH-002; the key making the request: 400 SVC-AUTH-003. Revoking a revoked key
 * again answers with its original revocation time.
 */
export async function revokeApiKey(
  ex: Executor,
  accountId: string,
  keyId: string,
  opts: { keyInUse?: string | undefined; now: Date },
): Promise<RevokedApiKey> {
  if (opts.keyInUse === keyId) {
    const own = await one(ex, sql`SELECT 1 FROM api_keys WHERE id = ${keyId} AND account_id = ${accountId}`);
    if (own) throw new AppError('SVC-AUTH-003');
  }
  const row = await one<{ revoked_at: string }>(
    ex,
    sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${opts.now.toISOString()}::timestamptz)
        WHERE id = ${keyId} AND account_id = ${accountId} RETURNING revoked_at`,
  );
  if (!row) throw new AppError('SVC-AUTH-002', `API key ${keyId} not found`);
  return { id: keyId, status: 'revoked', revoked_at: toIso(row.revoked_at) };
}
