// Through the real paid path: settled calls promote the trust tier, and a refused execute changes nothing
// (no debit, no call row, no provider request).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceCredits, execute, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { probe, rateHeaders } from './helpers.js';

describe('rate limits on paid executions', () => {
  let t: TestApp;
  let server: ProviderServer;
  let providerId: string;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        SVC_RATE_LIMIT_ACCOUNT: '4',
        SVC_RATE_LIMIT_WALLET_NEW: '2',
        SVC_RATE_LIMIT_WALLET_ESTABLISHED: '6',
        SVC_TRUST_ESTABLISHED_PAYMENTS: '2',
        // Read the counter on every request: the settlement path does not notify this instance.
        SVC_TRUST_TIER_CACHE_SECONDS: '0',
      },
    });
    server = await startProviderServer();
    ({ providerId } = await registerProvider(t, server.url, [{ slug: 'echo', price_usdc: '0.01' }]));
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('promotes the account once its paid calls have settled', async () => {
    const { accountId, apiKey } = await t.createAccount();
    await fund(t, accountId, '1.00');
    const first = await execute(t, apiKey, providerId, 'echo', {});
    expect(first.statusCode).toBe(200);
    expect(rateHeaders(first)).toMatchObject({ limit: 4, remaining: 3 });
    expect((await execute(t, apiKey, providerId, 'echo', {})).statusCode).toBe(200);
    // Two settled payments: established (6) > account limit (4); the two calls made still count.
    const next = await probe(t, { headers: { 'x-svc-api-key': apiKey } });
    expect(rateHeaders(next)).toMatchObject({ limit: 6, remaining: 3 });
  });

  it('refuses an over-limit execute before any debit or provider call', async () => {
    const { accountId, apiKey } = await t.createAccount();
    await fund(t, accountId, '1.00');
    for (let i = 0; i < 4; i++) {
      expect((await probe(t, { headers: { 'x-svc-api-key': apiKey } })).statusCode).toBe(404);
    }
    const balanceBefore = await balanceCredits(t, accountId);
    const hitsBefore = server.hits('/echo');

    const refused = await execute(t, apiKey, providerId, 'echo', {});
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('SVC-RATE-001');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    expect(await balanceCredits(t, accountId)).toBe(balanceBefore);
    expect(server.hits('/echo')).toBe(hitsBefore);
    const calls = await t.deps.db.orm.execute(
      sql`SELECT count(*)::int AS n FROM calls WHERE account_id = ${accountId}`,
    );
    expect((calls as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });
});
