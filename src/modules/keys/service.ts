// API keys: `svc_sk_` + 40 base62 chars (~238 bits). Only SHA-256 is stored; prefix = first 11 chars.
import { sql } from 'drizzle-orm';
import { type Executor, one, toIso } from '../../db/index.js';
import { newId } from '../../lib/ids.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';

export interface CreatedApiKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  created_at: string;
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
