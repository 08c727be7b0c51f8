// Every log line of a run (info and error, including failed queries) is searched for every secret the
// run created: API keys, their hashes, the admin token. None may appear.
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/secrets.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app.js';

const lines: string[] = [];
const stream = new Writable({
  write(chunk, _enc, done) {
    lines.push(String(chunk));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ logger: { level: 'trace', stream } });
});
afterAll(async () => {
  await t.close().catch(() => {});
});

describe('logs', () => {
  it('never contain a secret, even when a query carrying one fails', async () => {
    const secrets: string[] = [TEST_ADMIN_TOKEN];
    const acc = await t.createAccount();
    const second = await t.inject({
      method: 'POST',
      url: `/v1/keys?token=${acc.apiKey}`,
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { name: 'second' },
    });
    expect(second.statusCode).toBe(201);
    const secondKey: string = second.json().data.key;
    for (const key of [acc.apiKey, secondKey]) secrets.push(key, sha256Hex(key));
    // A wrong key, a Bearer token and a key in the query string are logged as requests.
    await t.inject({ method: 'GET', url: '/v1/keys', headers: { authorization: `Bearer ${acc.apiKey}` } });
    await t.inject({ method: 'GET', url: `/v1/wallet/balance?api_key=${secondKey}` });

    // The key lookup (parameter: the key's hash) fails on a missing table and is logged at error level.
    await t.deps.db.orm.execute(sql`ALTER TABLE api_keys RENAME TO api_keys_gone`);
    const failed = await t.inject({
      method: 'GET',
      url: '/v1/keys',
      headers: { 'x-svc-api-key': secondKey },
    });
    expect(failed.statusCode).toBe(500);

    const log = lines.join('');
    expect(log).toMatch(/Failed query/); // the failure itself is logged, so the search below means something
    for (const secret of secrets)
      expect(log.includes(secret), `secret ${secret.slice(0, 10)}… in logs`).toBe(false);
  });
});
