// The CSV export of 100,000 calls, read from a real port as a stream: row count and sums match the
// database. Rows are written straight into the call log with generate_series (test arrangement).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import type { TestApp } from '../helpers/app.js';
import { createBillingApp } from './helpers.js';

const ROWS = 100_000;
let t: TestApp;
let user: { accountId: string; apiKey: string };
let baseUrl: string;

beforeAll(async () => {
  t = await createBillingApp();
  user = await t.createAccount();
  const other = await t.createAccount();
  for (const [account, n] of [
    [user.accountId, ROWS],
    [other.accountId, 50],
  ] as const) {
    await t.deps.db.orm.execute(
      sql`INSERT INTO calls (id, account_id, provider_id, endpoint_slug, price_credits, status, refunded,
                             provider_status, latency_ms, deadline_at, created_at, finished_at)
          SELECT 'call_big_' || ${account} || '_' || lpad(g::text, 6, '0'), ${account}, 'prov-' || (g % 3),
                 'slug-' || (g % 5), (g % 7 + 1) * 1000,
                 CASE g % 10 WHEN 0 THEN 'provider_error' WHEN 1 THEN 'client_error' WHEN 2 THEN 'timeout'
                             ELSE 'success' END,
                 g % 10 IN (0, 2),
                 CASE g % 10 WHEN 0 THEN 503 WHEN 1 THEN 422 WHEN 2 THEN NULL ELSE 200 END,
                 g % 500,
                 timestamptz '2026-02-01 00:00:00+00' + g * interval '10 seconds' + interval '1 minute',
                 timestamptz '2026-02-01 00:00:00+00' + g * interval '10 seconds',
                 timestamptz '2026-02-01 00:00:00+00' + g * interval '10 seconds'
          FROM generate_series(1, ${n}) AS g`,
    );
  }
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

it('exports 100,000 rows as a stream whose count and sums match the call log', async () => {
  const res = await fetch(`${baseUrl}/v1/billing/usage/export?from=2026-02-01&to=2026-02-28`, {
    headers: { 'x-svc-api-key': user.apiKey },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toMatch(
    /^attachment; filename="usage-2026-02-01-2026-02-28\.csv"$/,
  );
  // Streamed: no Content-Length, the body arrives in chunks.
  expect(res.headers.get('content-length')).toBeNull();
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  let pending = '';
  let header: string | undefined;
  let count = 0;
  let credits = 0n;
  let refundedRows = 0;
  let lastTimestamp = '';
  let ordered = true;
  const consume = (line: string) => {
    if (header === undefined) {
      header = line;
      return;
    }
    const f = line.split(',');
    count++;
    credits += BigInt(f[4] ?? 'x');
    if (f[4] === '0') refundedRows++;
    if ((f[0] ?? '') < lastTimestamp) ordered = false;
    lastTimestamp = f[0] ?? '';
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    const lines = pending.split('\r\n');
    pending = lines.pop() ?? '';
    for (const line of lines) consume(line);
  }
  expect(pending).toBe('');
  expect(header).toBe(
    'timestamp,call_id,provider_id,endpoint_slug,credits_charged,usdc_charged,outcome,provider_status,latency_ms',
  );
  const expected = await one<{ n: bigint; net: bigint; refunded: bigint }>(
    t.deps.db.orm,
    sql`SELECT count(*) AS n, coalesce(sum(price_credits) FILTER (WHERE NOT refunded), 0)::bigint AS net,
               count(*) FILTER (WHERE refunded) AS refunded
        FROM calls WHERE account_id = ${user.accountId}`,
  );
  expect(count).toBe(ROWS);
  expect(BigInt(count)).toBe(expected?.n);
  expect(credits).toBe(expected?.net);
  expect(BigInt(refundedRows)).toBe(expected?.refunded);
  expect(ordered).toBe(true);

  // The usage report over the same days agrees with the export.
  const usage = await fetch(`${baseUrl}/v1/billing/usage?from=2026-02-01&to=2026-02-28&groupBy=provider`, {
    headers: { 'x-svc-api-key': user.apiKey },
  });
  const body = (await usage.json()) as { summary: { totalCreditsSpent: string; totalCalls: number } };
  expect(body.summary.totalCreditsSpent).toBe(credits.toString());
  expect(body.summary.totalCalls).toBe(ROWS);
}, 120_000);
