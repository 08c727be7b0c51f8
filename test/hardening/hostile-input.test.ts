// Hostile input at the edge: NUL bytes (PostgreSQL refuses U+0000 in text) and malformed path ids answer
// 400 SVC-VAL-001 on every route, with or without credentials, and never reach the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app.js';

let t: TestApp;
let apiKey: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ apiKey } = await t.createAccount());
});
afterAll(async () => {
  await t.close();
});

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe('NUL bytes', () => {
  const cases: Array<{
    method: 'GET' | 'POST' | 'DELETE' | 'PUT';
    url: string;
    payload?: unknown;
    who: string;
  }> = [
    { method: 'GET', url: '/v1/providers/%00', who: 'anon' },
    { method: 'GET', url: '/v1/providers/a%00b/endpoints/x', who: 'anon' },
    { method: 'GET', url: '/v1/discover?q=a%00b', who: 'anon' },
    { method: 'POST', url: '/v1/execute/%00/ok', payload: {}, who: 'key' },
    { method: 'POST', url: '/v1/execute/p/ok', payload: { q: 'a\u0000b' }, who: 'key' },
    { method: 'POST', url: '/v1/keys', payload: { name: 'a\u0000b' }, who: 'key' },
    { method: 'DELETE', url: '/v1/keys/key_%00', who: 'key' },
    { method: 'POST', url: '/v1/billing/coupons/redeem', payload: { code: 'A\u0000B' }, who: 'key' },
    { method: 'POST', url: '/v1/admin/accounts', payload: { email: 'a\u0000@b.co' }, who: 'admin' },
    { method: 'POST', url: '/v1/admin/accounts/acc_%00/suspend', payload: {}, who: 'admin' },
    { method: 'DELETE', url: '/v1/admin/providers/%00', who: 'admin' },
    {
      method: 'POST',
      url: '/v1/admin/accounts/acc_x/credits',
      payload: { amount_usdc: '1', description: 'x\u0000' },
      who: 'admin',
    },
    { method: 'POST', url: '/v1/auth/login', payload: { email: 'a@b.co', 'k\u0000': 1 }, who: 'anon' },
  ];
  for (const c of cases) {
    it(`${c.method} ${c.url} (${c.who}) → 400 SVC-VAL-001`, async () => {
      const headers: Record<string, string> =
        c.who === 'admin' ? admin : c.who === 'key' ? { 'x-svc-api-key': apiKey } : {};
      const res = await t.inject({
        method: c.method,
        url: c.url,
        headers,
        ...(c.payload === undefined ? {} : { payload: c.payload as Record<string, unknown> }),
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('SVC-VAL-001');
    });
  }
});

describe('NUL bytes in headers', () => {
  it('an Idempotency-Key holding one is 400 SVC-VAL-001, and nothing is credited', async () => {
    const { accountId } = await t.createAccount();
    const credit = (key: string) =>
      t.inject({
        method: 'POST',
        url: `/v1/admin/accounts/${accountId}/credits`,
        headers: { ...admin, 'idempotency-key': key },
        payload: { amount_usdc: '1', description: 'top-up' },
      });
    const refused = await credit('\u0000');
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: 'SVC-VAL-001',
      message: 'header idempotency-key must not contain NUL bytes',
    });
    // The next credit is the account's first: balance 1 USDC after it, not 2.
    const first = await credit('k-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data.amountUsdc).toBe('1.000000');
    expect(first.json().data.balanceAfter).toBe('1000000');
  });

  it('any header holding one is refused before authentication', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/execute/p/ok',
      headers: { 'x-svc-api-key': apiKey, 'x-trace': 'a\u0000b' },
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('SVC-VAL-001');
  });
});

describe('path ids', () => {
  it('refuses ids outside the id alphabet by the route schema', async () => {
    for (const url of ['/v1/providers/a%20b', '/v1/providers/%E2%80%AE', '/v1/providers/..%2F..']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code).toBe('SVC-VAL-001');
    }
  });

  it('still answers 404 for a well-formed unknown id', async () => {
    const res = await t.inject({ method: 'GET', url: '/v1/providers/no-such-provider' });
    expect(res.statusCode).toBe(404);
  });
});
