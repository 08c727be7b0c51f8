// API keys: `svc_sk_` + 40 base62 chars (~238 bits). Only SHA-256 is stored; prefix = first 11 chars.
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, type Orm, one, rows, toIso } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';
import { utcDay } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { creditsToUsdc } from '../../lib/money.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import {
  type KeyPolicyInput,
  type KeyPolicyView,
  type KeyUsageView,
  POLICY_COLUMNS,
  type PolicyColumns,
  parsePolicy,
  policyAssignments,
  policyView,
  writePolicy,
} from './policy.js';

export interface CreatedApiKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  created_at: string;
  policy: KeyPolicyView | null;
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  status: 'active' | 'revoked';
  revoked_at: string | null;
  policy: KeyPolicyView | null;
  usage: KeyUsageView;
}

export interface RevokedApiKey {
  id: string;
  status: 'revoked';
  revoked_at: string;
}

/** Creates a key, with a policy when one is given (a new key has spent nothing: counters start at 0). */
export async function createApiKey(
  ex: Executor,
  accountId: string,
  name: string,
  opts: { policy?: KeyPolicyInput | undefined; now?: Date } = {},
): Promise<CreatedApiKey> {
  const now = opts.now ?? new Date();
  const policy = opts.policy === undefined ? null : parsePolicy(opts.policy, now);
  const key = `svc_sk_${randomBase62(40)}`;
  const id = newId('key');
  const prefix = key.slice(0, 11);
  // Call it in a transaction when a policy is given; either way the key is handed out only afterwards.
  const row = await one<{ created_at: string }>(
    ex,
    sql`INSERT INTO api_keys (id, account_id, name, prefix, key_hash, spent_day)
        VALUES (${id}, ${accountId}, ${name}, ${prefix}, ${sha256Hex(key)}, ${utcDay(now)}::date)
        RETURNING created_at`,
  );
  if (policy !== null) {
    await ex.execute(sql`UPDATE api_keys SET ${policyAssignments(policy)} WHERE id = ${id}`);
  }
  const view = await keyView(ex, accountId, id, now);
  return { id, name, key, prefix, created_at: toIso(row?.created_at), policy: view?.policy ?? null };
}

/** Puts (policy) or removes (null) a key's policy; answers the key as GET /v1/keys shows it. */
export async function setApiKeyPolicy(
  ex: Orm,
  accountId: string,
  keyId: string,
  policy: KeyPolicyInput | null,
  now: Date,
): Promise<ApiKeyView> {
  const stored = policy === null ? null : parsePolicy(policy, now);
  await ex.transaction((tx) => writePolicy(tx, accountId, keyId, stored, now));
  const view = await keyView(ex, accountId, keyId, now);
  if (!view) throw new AppError('SVC-AUTH-002', `API key ${keyId} not found`);
  return view;
}

interface KeyRow extends PolicyColumns {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  today_credits: bigint | null;
  total_credits: bigint | null;
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
    policy: policyView(row),
    usage: {
      today_usdc: creditsToUsdc(BigInt(row.today_credits ?? 0n)),
      total_usdc: creditsToUsdc(BigInt(row.total_credits ?? 0n)),
    },
  };
}

/**
 * Key rows with their usage, net of refunds: a key with a policy carries its own counters (kept by the
 * debit and refund statements); for a key without one the call log of the account is summed, so the
 * batched debit path never has to write the key row.
 */
function keyRows(accountId: string, now: Date, where: SQL, limit: number) {
  const day = utcDay(now);
  return sql`SELECT k.id, k.name, k.prefix, k.created_at, k.last_used_at, k.revoked_at, ${POLICY_COLUMNS},
        CASE WHEN k.has_policy THEN (CASE WHEN k.spent_day = ${day}::date THEN k.spent_today_credits ELSE 0 END)
             ELSE u.today END AS today_credits,
        CASE WHEN k.has_policy THEN k.spent_total_credits ELSE u.total END AS total_credits
      FROM api_keys k
      LEFT JOIN LATERAL (
        SELECT sum(c.price_credits) FILTER (WHERE c.created_at >= ${day}::date::timestamp AT TIME ZONE 'utc') AS today,
               sum(c.price_credits) AS total
        FROM calls c
        WHERE NOT k.has_policy AND c.account_id = k.account_id AND c.api_key_id = k.id AND NOT c.refunded
      ) u ON true
      WHERE k.account_id = ${accountId} ${where}
      ORDER BY k.id DESC LIMIT ${limit}`;
}

async function keyView(ex: Executor, accountId: string, keyId: string, now: Date) {
  const row = await one<KeyRow>(ex, keyRows(accountId, now, sql`AND k.id = ${keyId}`, 1));
  return row ? view(row) : undefined;
}

/**
 * The account's keys, newest first, revoked ones included (with status and revoked_at); never the secret.
 * `after` is the id of the last key of the previous page (ids sort by creation time).
 */
export async function listApiKeys(
  ex: Executor,
  accountId: string,
  page: { limit: number; after?: string | undefined; now?: Date },
): Promise<{ keys: ApiKeyView[]; hasMore: boolean }> {
  const found = await rows<KeyRow>(
    ex,
    keyRows(
      accountId,
      page.now ?? new Date(),
      page.after ? sql`AND k.id < ${page.after}` : sql``,
      page.limit + 1,
    ),
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
