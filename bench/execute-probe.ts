// Debug aid: counts the SQL statements one paid execute issues (in-process, PostgreSQL).
import pg from 'pg';
import { createTestApp } from '../test/helpers/app.js';
import { startProviderServer } from '../test/helpers/providers.js';

const seen: string[] = [];
const orig = pg.Client.prototype.query;
(pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (
  this: unknown,
  ...args: unknown[]
) {
  const q = args[0];
  seen.push(typeof q === 'string' ? q : String((q as { text?: string }).text));
  return (orig as (...a: unknown[]) => unknown).apply(this, args);
};
const t = await createTestApp({ env: { SVC_RATE_LIMIT_MULTIPLIER: '100000' } });
const server = await startProviderServer({ record: false });
const p = { providerId: 'probe' };
await t.admin('POST', '/v1/admin/providers', {
  provider_id: 'probe',
  name: 'Probe',
  description: 'probe',
  category: 'utility',
  base_url: server.url,
  endpoints: [
    {
      slug: 'echo',
      method: 'POST',
      path: '/echo',
      description: 'echo',
      parameters: {},
      pricing: { model: 'per_call', price_per_call_usdc: '0.001' },
    },
  ],
});
const acc = await t.createAccount();
await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/credits`, {
  amount_usdc: '100',
  description: 'probe',
});
const call = () =>
  t.inject({
    method: 'POST',
    url: `/v1/execute/${p.providerId}/echo`,
    headers: { 'x-svc-api-key': acc.apiKey },
    payload: {},
  });
await call();
await call();
seen.length = 0;
await call();
for (const s of seen) console.log('SQL:', s.replace(/\s+/g, ' ').slice(0, 160));
const n = 300;
const t0 = performance.now();
for (let i = 0; i < n; i++) await call();
console.log(`sequential in-process: ${((performance.now() - t0) / n).toFixed(2)} ms per call`);
await t.close();
await server.close();
