// Idempotency-Key for executions (docs/execution.md). The key is claimed by the unique index
// calls (account_id, idempotency_key) in the debit statement itself, so two identical requests at once
// cannot both be charged; the loser reads the winner's row here. Call rows are kept (never purged), so a
// key is remembered well beyond the required 24 hours.
import { sql } from 'drizzle-orm';
import { type Executor, one } from '../../db/index.js';
import { assertReplayable, requestFingerprint } from '../../http/idempotency.js';

export { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../http/idempotency.js';

export function requestHash(providerId: string, slug: string, body: unknown): string {
  return requestFingerprint([providerId, slug], body);
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
  const finished = row.status !== 'pending' && row.response_status !== null && row.response_body !== null;
  assertReplayable({ fingerprint: row.request_hash, finished }, hash);
  return { status: row.response_status as number, body: row.response_body as string };
}
