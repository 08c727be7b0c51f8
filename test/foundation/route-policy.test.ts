// Route policy is declared on the route and checked in onRequest, before the body is validated: a request
// to an admin route without the admin token learns 401 SVC-AUTH-001 and nothing about its body; an
// account route without credentials likewise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const INVALID_BODY = { not_a_field: true };

const ADMIN_ROUTES: [method: 'POST' | 'PUT', url: string][] = [
  ['POST', '/v1/admin/accounts'],
  ['POST', '/v1/admin/accounts/acc_x/credits'],
  ['POST', '/v1/admin/accounts/acc_x/suspend'],
  ['POST', '/v1/admin/providers'],
  ['PUT', '/v1/admin/providers/acme'],
  ['POST', '/v1/admin/coupons'],
];

describe('route policy', () => {
  for (const [method, url] of ADMIN_ROUTES) {
    it(`${method} ${url} without the admin token: 401 before any field error`, async () => {
      for (const authorization of [undefined, 'Bearer wrong-token']) {
        const res = await t.inject({
          method,
          url,
          payload: INVALID_BODY,
          headers: authorization ? { authorization } : {},
        });
        expect(res.statusCode, res.body).toBe(401);
        expect(res.json().error.code).toBe('SVC-AUTH-001');
      }
      // With the token the same body is refused for what it is.
      const ok = await t.inject({
        method,
        url,
        payload: INVALID_BODY,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(ok.statusCode, ok.body).not.toBe(401);
    });
  }

  it('an account route without credentials: 401 before any field error', async () => {
    const res = await t.inject({ method: 'PUT', url: '/v1/billing/limits', payload: INVALID_BODY });
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().error.code).toBe('SVC-AUTH-001');
  });
});
