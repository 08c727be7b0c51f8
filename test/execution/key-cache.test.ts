// Paid execute takes the API key → account mapping from an in-process cache and checks revocation and
// account status inside the debit statement (docs/execution.md). These tests make sure that shortcut
// answers exactly like the full lookup: a revoked key or a suspended account gets 401/403, with no debit
// and no provider call, at once, on this instance and on another one that had cached the key.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { balanceCredits, execute, expectInvariants, fund, registerProvider } from './fixtures.js';

const env = { SVC_RATE_LIMIT_MULTIPLIER: '1000' };

let t: TestApp;
let server: ProviderServer;
let providerId: string;

beforeAll(async () => {
  t = await createTestApp({ env });
  server = await startProviderServer();
  providerId = (
    await registerProvider(t, server.url, [
      {
        slug: 'echo',
        price_usdc: '0.01',
        parameters: { text: { type: 'string', required: true, description: 'what to echo' } },
      },
    ])
  ).providerId;
});

afterAll(async () => {
  await t.close();
  await server.close();
});

async function secondKey(app: TestApp, apiKey: string): Promise<{ id: string; key: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/keys',
    headers: { 'x-svc-api-key': apiKey },
    payload: { name: 'second' },
  });
  expect(res.statusCode).toBe(201);
  return res.json().data;
}

async function revoke(app: TestApp, apiKey: string, keyId: string) {
  const res = await app.inject({
    method: 'DELETE',
    url: `/v1/keys/${keyId}`,
    headers: { 'x-svc-api-key': apiKey },
  });
  expect(res.statusCode).toBe(200);
}

async function debitsOf(app: TestApp, accountId: string): Promise<number> {
  const r = await one<{ n: bigint }>(
    app.deps.db.orm,
    sql`SELECT count(*) AS n FROM ledger_entries WHERE account_id = ${accountId} AND type = 'debit'`,
  );
  return Number(r?.n ?? -1);
}

describe('execute with a cached key mapping', () => {
  it('refuses a key revoked after it was cached: 401, no debit, no provider call, whatever the request', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const second = await secondKey(t, acc.apiKey);
    // Two paid calls: the first resolves the key fully (and caches it), the second uses the cache.
    for (let i = 0; i < 2; i++) {
      expect((await execute(t, second.key, providerId, 'echo', { text: 'hi' })).statusCode).toBe(200);
    }
    const balance = await balanceCredits(t, acc.accountId);
    const hits = server.hits('/echo');
    await revoke(t, acc.apiKey, second.id);

    const paid = await execute(t, second.key, providerId, 'echo', { text: 'hi' });
    expect(paid.statusCode).toBe(401);
    expect(paid.json().error.code).toBe('SVC-AUTH-001');
    // Answers decided before the debit are not given to a revoked key either.
    for (const [slug, body] of [
      ['echo', { nope: 1 }],
      ['no-such-endpoint', { text: 'hi' }],
    ] as const) {
      const res = await execute(t, second.key, providerId, slug, body);
      expect(res.statusCode, slug).toBe(401);
      expect(res.json().error.code, slug).toBe('SVC-AUTH-001');
    }
    expect(await balanceCredits(t, acc.accountId)).toBe(balance);
    expect(server.hits('/echo')).toBe(hits);
    // The other key of the account still works.
    expect((await execute(t, acc.apiKey, providerId, 'echo', { text: 'hi' })).statusCode).toBe(200);
    await expectInvariants(t);
  });

  it('refuses a suspended account with 403 at once, and serves it again once reinstated', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    expect((await execute(t, acc.apiKey, providerId, 'echo', { text: 'hi' })).statusCode).toBe(200);
    const debits = await debitsOf(t, acc.accountId);
    const hits = server.hits('/echo');
    expect(
      (await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/suspend`, { reason: 'test' })).statusCode,
    ).toBe(200);
    for (const body of [{ text: 'hi' }, { nope: 1 }]) {
      const res = await execute(t, acc.apiKey, providerId, 'echo', body);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('SVC-AUTH-004');
    }
    expect(await debitsOf(t, acc.accountId)).toBe(debits);
    expect(server.hits('/echo')).toBe(hits);
    expect((await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/reinstate`, {})).statusCode).toBe(200);
    expect((await execute(t, acc.apiKey, providerId, 'echo', { text: 'hi' })).statusCode).toBe(200);
    await expectInvariants(t);
  });

  it('refuses every call of a burst on a busy account once its key is revoked (coalesced debits)', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '5');
    const second = await secondKey(t, acc.apiKey);
    expect((await execute(t, second.key, providerId, 'echo', { text: 'hi' })).statusCode).toBe(200);
    await revoke(t, acc.apiKey, second.id);
    const debits = await debitsOf(t, acc.accountId);
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => execute(t, second.key, providerId, 'echo', { text: 'hi' })),
    );
    expect(burst.map((r) => r.statusCode)).toEqual(burst.map(() => 401));
    expect(await debitsOf(t, acc.accountId)).toBe(debits);
    await expectInvariants(t);
  });
});

// PGlite is an in-process database: a second instance cannot share it, so this needs PostgreSQL.
describe.skipIf(!process.env.DATABASE_URL)('two instances on one PostgreSQL', () => {
  let b: TestApp;
  beforeAll(async () => {
    b = await createTestApp({ env, schema: t.schema as string });
  });
  afterAll(async () => {
    await b?.close();
  });

  it('a key revoked on instance A is refused for execute on instance B, which had cached it', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const second = await secondKey(t, acc.apiKey);
    for (let i = 0; i < 2; i++) {
      expect((await execute(b, second.key, providerId, 'echo', { text: 'hi' })).statusCode).toBe(200);
    }
    const debits = await debitsOf(t, acc.accountId);
    const hits = server.hits('/echo');
    await revoke(t, acc.apiKey, second.id);
    const res = await execute(b, second.key, providerId, 'echo', { text: 'hi' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('SVC-AUTH-001');
    expect(await debitsOf(t, acc.accountId)).toBe(debits);
    expect(server.hits('/echo')).toBe(hits);

    // Suspension on A, seen by B's next execute with the account's other (cached) key.
    expect((await execute(b, acc.apiKey, providerId, 'echo', { text: 'hi' })).statusCode).toBe(200);
    expect(
      (await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/suspend`, { reason: 'x' })).statusCode,
    ).toBe(200);
    const suspended = await execute(b, acc.apiKey, providerId, 'echo', { text: 'hi' });
    expect(suspended.statusCode).toBe(403);
    expect(suspended.json().error.code).toBe('SVC-AUTH-004');
    await expectInvariants(t);
  });
});
