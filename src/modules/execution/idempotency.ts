// Idempotency-Key for executions (DESIGN.md section 4). The key is claimed by the unique index
// calls (account_id, idempotency_key) in the debit statement itself, so two identical requests at once
// cannot both be charged; the loser reads the winner's row here. Call rows are kept (never purged), so a
// key is remembered well beyond the required 24 hours.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Executor, one } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** JSON with sorted object keys, so the same body with its keys in another order hashes the same. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(',')}}`;
}

export function requestHash(providerId: string, slug: string, body: unknown): string {
  return createHash('sha256')
    .update(`${providerId}\n${slug}\n${canonicalJson(body)}`)
    .digest('hex');
}

export interface StoredResponse {
  status: number;
  body: string;
}

/** What to answer when the key is already taken: the stored response, or 422/409. */
export async function replayFor(
  ex: Executor,
  accountId: string,
  key: string,
  hash: string,
): Promise<StoredResponse> {
  const row = await one<{
    status: string;
    request_hash: string | null;
    response_status: number | null;
    response_body: string | null;
  }>(
    ex,
    sql`SELECT status, request_hash, response_status, response_body FROM calls
        WHERE account_id = ${accountId} AND idempotency_key = ${key}`,
  );
  if (!row) throw new Error('idempotency key conflict without a call row');
  if (row.request_hash !== hash) throw new AppError('SVC-VAL-004');
  if (row.status === 'pending' || row.response_status === null || row.response_body === null) {
    throw new AppError('SVC-VAL-005');
  }
  return { status: row.response_status, body: row.response_body };
}
