// Business counters in /metrics: after a charged call, a refunded call and a refused one, the scrape shows
// them by outcome, the credits charged and refunded, the debit statement sizes and the mail queue.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueueEmail } from '../../src/modules/notifications/outbox.js';
import { execute, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';

let t: TestApp;
let provider: ProviderServer;
beforeAll(async () => {
  t = await createTestApp();
  provider = await startProviderServer();
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

/** The value of one sample line of the scrape (0 when absent). */
function sample(body: string, line: string): number {
  const found = body.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

it('counts calls by outcome, credits charged and refunded, batch sizes and the mail queue', async () => {
  const { providerId } = await registerProvider(t, provider.url, [
    { slug: 'echo', price_usdc: '0.01' },
    { slug: 'fail', price_usdc: '0.02' },
  ]);
  const payer = await t.createAccount();
  await fund(t, payer.accountId, '1');
  const broke = await t.createAccount();

  expect((await execute(t, payer.apiKey, providerId, 'echo', {})).statusCode).toBe(200);
  expect((await execute(t, payer.apiKey, providerId, 'fail', {})).statusCode).toBe(502);
  expect((await execute(t, broke.apiKey, providerId, 'echo', {})).statusCode).toBe(402);

  const res = await t.admin('GET', '/metrics');
  expect(res.statusCode).toBe(200);
  const m = res.body;
  expect(sample(m, 'svc_calls_total{outcome="charged"}')).toBe(1);
  expect(sample(m, 'svc_calls_total{outcome="refunded"}')).toBe(1);
  expect(sample(m, 'svc_calls_total{outcome="refused"}')).toBe(1);
  // Both debited calls were charged (10,000 + 20,000 credits); the failed one came back.
  expect(sample(m, 'svc_credits_charged_total')).toBe(30_000);
  expect(sample(m, 'svc_credits_refunded_total{reason="provider_5xx"}')).toBe(20_000);
  expect(sample(m, 'svc_sweeper_refunds_total')).toBe(0);
  expect(sample(m, 'svc_debit_batch_size_count')).toBeGreaterThanOrEqual(2);
  expect(sample(m, 'svc_mail_queue{status="pending"}')).toBe(0);
  expect(m).toContain('svc_deposits_total 0');
  // The mail queue is read at scrape time: an e-mail queued now shows at the next scrape.
  await enqueueEmail(t.deps.db.orm, {
    kind: 'test',
    to: 'ops@example.com',
    subject: 'x',
    text: 'x',
    html: 'x',
    dedupeKey: 'metrics-test',
  });
  const after = (await t.admin('GET', '/metrics')).body;
  expect(sample(after, 'svc_mail_queue{status="pending"}')).toBe(1);
  // Next to the HTTP histogram.
  expect(m).toMatch(
    /svc_http_request_duration_seconds_count\{method="POST",route="\/v1\/execute\/:providerId\/:\w+",status="200"\} 1/,
  );
});
