// A key's budget holds across two service instances sharing one PostgreSQL: the check and the counters
// live in the debit statement, not in either process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceCredits, execute, expectInvariants, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';

const shared = Boolean(process.env.DATABASE_URL);
const env = { SVC_RATE_LIMIT_MULTIPLIER: '10000' };

let a: TestApp;
let b: TestApp;
let server: ProviderServer;
let providerId: string;

// PGlite is an in-process database: a second instance cannot share it, so this needs PostgreSQL.
describe.skipIf(!shared)('key budgets on two instances (skipped on PGlite: it cannot be shared)', () => {
  beforeAll(async () => {
    a = await createTestApp({ env });
    b = await createTestApp({ env, schema: a.schema as string });
    server = await startProviderServer({ record: false });
    providerId = (
      await registerProvider(a, server.url, [
        { slug: 'echo', price_usdc: '0.01', timeout_ms: 20_000 },
        { slug: 'fail', price_usdc: '0.01', timeout_ms: 20_000 },
      ])
    ).providerId;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await server?.close();
  });

  it('60 calls at once through one key, half on each instance, against a daily budget for 10 (total budget 12)', async () => {
    const acc = await a.createAccount();
    await fund(a, acc.accountId, '5');
    const created = await a.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { name: 'agent', policy: { daily_limit_usdc: '0.1', total_limit_usdc: '0.12' } },
    });
    const agent = created.json().data as { id: string; key: string };
    // One refunded call first: it gives its budget back.
    expect((await execute(b, agent.key, providerId, 'fail', {})).statusCode).toBe(502);

    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => execute(i % 2 ? a : b, agent.key, providerId, 'echo', {})),
    );
    const charged = results.filter((r) => r.statusCode === 200).length;
    expect(charged).toBe(10);
    expect(results.filter((r) => r.statusCode === 402).length).toBe(50);
    expect(await balanceCredits(a, acc.accountId)).toBe(5_000_000n - 100_000n);
    const list = await b.inject({ method: 'GET', url: '/v1/keys', headers: { 'x-svc-api-key': acc.apiKey } });
    const usage = (list.json().data as { id: string; usage: unknown }[]).find(
      (k) => k.id === agent.id,
    )?.usage;
    expect(usage).toEqual({ today_usdc: '0.100000', total_usdc: '0.100000' });
    await expectInvariants(a);
    await expectInvariants(b);
  });
});
