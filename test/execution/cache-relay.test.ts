// A price changed on one instance is charged by another at once: the change travels over Redis to the
// other instance's endpoint cache instead of waiting out its 5 s TTL. (Two instances on one PostgreSQL
// schema and one Redis: skipped on PGlite or without Redis.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOLVE_CACHE_TTL_MS } from '../../src/modules/execution/resolve.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { execute, expectInvariants, fund, providerBody, registerProvider } from './fixtures.js';

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

describe.skipIf(!shared)('endpoint cache across instances', () => {
  let a: TestApp;
  let b: TestApp;
  let server: ProviderServer;
  beforeAll(async () => {
    server = await startProviderServer({ record: false });
    a = await createTestApp();
    b = await createTestApp({ schema: a.schema as string });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await server?.close();
  });

  it("charges instance A's new price on instance B well within the cache TTL", async () => {
    const { providerId } = await registerProvider(a, server.url, [{ slug: 'echo', price_usdc: '0.001' }]);
    const acc = await a.createAccount();
    await fund(a, acc.accountId, '1');
    // B resolves (and caches) the endpoint at the old price.
    const before = await execute(b, acc.apiKey, providerId, 'echo', {});
    expect(before.json().svc.charged_usdc).toMatch(/^0\.001/);

    const changed = await a.admin(
      'PUT',
      `/v1/admin/providers/${providerId}`,
      providerBody(providerId, server.url, [{ slug: 'echo', price_usdc: '0.002' }]),
    );
    expect(changed.statusCode).toBe(200);
    const started = Date.now();
    let charged = '';
    while (Date.now() - started < RESOLVE_CACHE_TTL_MS) {
      charged = (await execute(b, acc.apiKey, providerId, 'echo', {})).json().svc.charged_usdc;
      if (charged.startsWith('0.002')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(charged).toMatch(/^0\.002/);
    expect(Date.now() - started).toBeLessThan(1_000);
    await expectInvariants(a);
  });
});
