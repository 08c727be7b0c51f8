// Credentials on every /v1/billing/* route: the shared security checks, and session tokens accepted
// like API keys (DESIGN.md section 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSession } from '../../src/modules/auth/sessions.js';
import type { TestApp } from '../helpers/app.js';
import { type AuthCheckRoute, runCommonAuthChecks } from '../helpers/auth-checks.js';
import { createBillingApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createBillingApp();
});
afterAll(async () => {
  await t?.close();
});

const routes: AuthCheckRoute[] = [
  { method: 'GET', url: '/v1/billing/balance' },
  {
    method: 'POST',
    url: '/v1/billing/checkout',
    payload: { amountUsdCents: 1000, successUrl: 'https://a.example/s', cancelUrl: 'https://a.example/c' },
  },
  { method: 'GET', url: '/v1/billing/payments' },
  { method: 'GET', url: '/v1/billing/transactions' },
  { method: 'GET', url: '/v1/billing/usage' },
  { method: 'GET', url: '/v1/billing/usage/export' },
  { method: 'GET', url: '/v1/billing/limits' },
  { method: 'PUT', url: '/v1/billing/limits', payload: { perCallLimitUsdc: '1' } },
  { method: 'GET', url: '/v1/billing/alerts' },
  { method: 'PUT', url: '/v1/billing/alerts', payload: { emailNotifications: { lowBalance: true } } },
];

describe('billing credentials', () => {
  for (const route of routes) {
    it(`${route.method} ${route.url} refuses missing, bad, revoked, expired and suspended credentials`, async () => {
      await runCommonAuthChecks(t, route);
    });
  }

  it('POST /v1/billing/coupons/redeem refuses bad credentials before looking the code up', async () => {
    // A fresh account redeeming an unknown code gets 404: let through, then refused for the code.
    await runCommonAuthChecks(t, {
      method: 'POST',
      url: '/v1/billing/coupons/redeem',
      payload: { code: 'NO-SUCH-CODE' },
    });
  });

  it('accepts a session token of the account like its API key', async () => {
    const u = await t.createAccount();
    const session = await issueSession(t.deps, u.accountId);
    const headers = { authorization: `Bearer ${session.session_token}` };
    const limits = await t.inject({
      method: 'PUT',
      url: '/v1/billing/limits',
      headers,
      payload: { dailySpendLimitUsdc: '3' },
    });
    expect(limits.statusCode).toBe(200);
    const balance = await t.inject({ method: 'GET', url: '/v1/billing/balance', headers });
    expect(balance.statusCode).toBe(200);
    expect(balance.json().dailySpendLimitCredits).toBe('3000000');
    const byKey = await t.inject({
      method: 'GET',
      url: '/v1/billing/balance',
      headers: { 'x-svc-api-key': u.apiKey },
    });
    expect(byKey.json()).toEqual(balance.json());
  });
});
