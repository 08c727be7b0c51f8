// Usage report and CSV export over real paid calls (execution path against local provider servers).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { execute, fund, registerProvider } from '../execution/fixtures.js';
import type { TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { type As, as, createBillingApp, expectError, expectInvariants } from './helpers.js';

const clock = new ManualClock(new Date('2026-04-08T08:00:00.000Z'));
let t: TestApp;
let server: ProviderServer;
let user: { accountId: string; apiKey: string; call: As };
let provA: string;
let provB: string;

beforeAll(async () => {
  server = await startProviderServer();
  t = await createBillingApp({ clock });
  const u = await t.createAccount();
  user = { ...u, call: as(t, u.apiKey) };
  await fund(t, u.accountId, '100');
  provA = (
    await registerProvider(t, server.url, [
      { slug: 'echo', price_usdc: '0.5' },
      { slug: 'fail', price_usdc: '0.25' },
      { slug: 'bad-request', price_usdc: '0.5' },
    ])
  ).providerId;
  provB = (await registerProvider(t, server.url, [{ slug: 'echo', price_usdc: '1' }])).providerId;
  // 2026-04-08: two successes and a refunded provider failure on A.
  await execute(t, u.apiKey, provA, 'echo', {});
  clock.advance(60_000);
  await execute(t, u.apiKey, provA, 'echo', {});
  clock.advance(60_000);
  await execute(t, u.apiKey, provA, 'fail', {});
  // 2026-04-10: one call on B, one charged 4xx on A.
  clock.set(new Date('2026-04-10T23:59:00.000Z'));
  await execute(t, u.apiKey, provB, 'echo', {});
  clock.advance(30_000);
  await execute(t, u.apiKey, provA, 'bad-request', {});
  clock.set(new Date('2026-04-11T00:00:00.000Z'));
  // The next UTC day, outside the ranges asked below.
  await execute(t, u.apiKey, provB, 'echo', {});
  clock.set(new Date('2026-04-12T12:00:00.000Z'));
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const zeroDay = (date: string) => ({
  date,
  creditsSpent: '0',
  usdcSpent: '0.000000',
  callCount: 0,
  providerBreakdown: [],
});

describe('GET /v1/billing/usage', () => {
  it('groups by UTC day with every day present and spend net of refunds', async () => {
    const res = await user.call('GET', '/v1/billing/usage?from=2026-04-07&to=2026-04-10');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.summary).toEqual({
      totalCreditsSpent: '2500000',
      totalUsdcSpent: '2.500000',
      totalCalls: 5,
      dateRange: { from: '2026-04-07', to: '2026-04-10' },
    });
    expect(body.daily).toEqual([
      zeroDay('2026-04-07'),
      {
        date: '2026-04-08',
        creditsSpent: '1000000',
        usdcSpent: '1.000000',
        callCount: 3,
        providerBreakdown: [
          {
            providerId: provA,
            providerName: `Test provider ${provA}`,
            creditsSpent: '1000000',
            callCount: 3,
          },
        ],
      },
      zeroDay('2026-04-09'),
      {
        date: '2026-04-10',
        creditsSpent: '1500000',
        usdcSpent: '1.500000',
        callCount: 2,
        providerBreakdown: [
          {
            providerId: provB,
            providerName: `Test provider ${provB}`,
            creditsSpent: '1000000',
            callCount: 1,
          },
          { providerId: provA, providerName: `Test provider ${provA}`, creditsSpent: '500000', callCount: 1 },
        ],
      },
    ]);
  });

  it('has totals equal to the ledger’s call debits net of refunds over the same days', async () => {
    const usage = (await user.call('GET', '/v1/billing/usage?from=2026-04-01&to=2026-04-30')).json();
    const ledger = await one<{ spent: bigint }>(
      t.deps.db.orm,
      sql`SELECT -sum(amount_credits) AS spent FROM ledger_entries
          WHERE account_id = ${user.accountId} AND type IN ('debit', 'refund')
            AND created_at >= '2026-04-01T00:00:00Z' AND created_at < '2026-05-01T00:00:00Z'`,
    );
    expect(usage.summary.totalCreditsSpent).toBe(ledger?.spent.toString());
    expect(usage.summary.totalCreditsSpent).toBe('3500000');
    expect(usage.daily).toHaveLength(30);
    await expectInvariants(t);
  });

  it('groups by provider', async () => {
    const res = await user.call('GET', '/v1/billing/usage?from=2026-04-08&to=2026-04-10&groupBy=provider');
    expect(res.json()).toEqual({
      summary: {
        totalCreditsSpent: '2500000',
        totalUsdcSpent: '2.500000',
        totalCalls: 5,
        dateRange: { from: '2026-04-08', to: '2026-04-10' },
      },
      providers: [
        {
          providerId: provA,
          providerName: `Test provider ${provA}`,
          creditsSpent: '1500000',
          usdcSpent: '1.500000',
          callCount: 4,
        },
        {
          providerId: provB,
          providerName: `Test provider ${provB}`,
          creditsSpent: '1000000',
          usdcSpent: '1.000000',
          callCount: 1,
        },
      ],
    });
  });

  it('defaults to the last 30 days up to today (UTC)', async () => {
    const body = (await user.call('GET', '/v1/billing/usage')).json();
    expect(body.summary.dateRange).toEqual({ from: '2026-03-14', to: '2026-04-12' });
    expect(body.daily).toHaveLength(30);
    expect(body.summary.totalCreditsSpent).toBe('3500000');
    const single = (await user.call('GET', '/v1/billing/usage?from=2026-04-11&to=2026-04-11')).json();
    expect(single.daily.map((d: { date: string }) => d.date)).toEqual(['2026-04-11']);
    expect(single.summary.totalCalls).toBe(1);
  });

  it('refuses bad dates, reversed or too long ranges and unknown groupings', async () => {
    for (const q of [
      'from=2026-04-10&to=2026-04-09',
      'from=2026-02-30&to=2026-03-01',
      'from=04/10/2026',
      'to=2026-4-1',
      'from=2025-01-01&to=2026-04-01',
      'groupBy=week',
      'other=1',
    ]) {
      expectError(await user.call('GET', `/v1/billing/usage?${q}`), 400, 'SVC-VAL-001');
    }
    expect((await user.call('GET', '/v1/billing/usage?from=2025-04-01&to=2026-03-31')).statusCode).toBe(200);
    expectError(await t.inject({ method: 'GET', url: '/v1/billing/usage' }), 401, 'SVC-AUTH-001');
  });

  it('shows nothing of another account', async () => {
    const other = await t.createAccount();
    const body = (await as(t, other.apiKey)('GET', '/v1/billing/usage?groupBy=provider')).json();
    expect(body.providers).toEqual([]);
    expect(body.summary.totalCalls).toBe(0);
  });
});

describe('GET /v1/billing/usage/export', () => {
  it('streams RFC 4180 CSV with the DESIGN columns as an attachment', async () => {
    const res = await user.call('GET', '/v1/billing/usage/export?from=2026-04-08&to=2026-04-10');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="usage-2026-04-08-2026-04-10.csv"');
    const lines = res.body.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe(
      'timestamp,call_id,provider_id,endpoint_slug,credits_charged,usdc_charged,outcome,provider_status,latency_ms',
    );
    const rowsOut = lines.slice(1).map((l) => l.split(','));
    expect(rowsOut.map((r) => [r[0], r[2], r[3], r[4], r[5], r[6], r[7]])).toEqual([
      ['2026-04-08T08:00:00.000Z', provA, 'echo', '500000', '0.500000', 'success', '200'],
      ['2026-04-08T08:01:00.000Z', provA, 'echo', '500000', '0.500000', 'success', '200'],
      ['2026-04-08T08:02:00.000Z', provA, 'fail', '0', '0.000000', 'provider_error', '500'],
      ['2026-04-10T23:59:00.000Z', provB, 'echo', '1000000', '1.000000', 'success', '200'],
      ['2026-04-10T23:59:30.000Z', provA, 'bad-request', '500000', '0.500000', 'client_error', '400'],
    ]);
    for (const r of rowsOut) {
      expect(r[1]).toMatch(/^call_/);
      expect(r[8]).toMatch(/^\d+$/);
    }
  });

  it('validates the range like the usage report and needs a credential', async () => {
    expectError(
      await user.call('GET', '/v1/billing/usage/export?from=2026-04-10&to=2026-04-01'),
      400,
      'SVC-VAL-001',
    );
    expectError(await t.inject({ method: 'GET', url: '/v1/billing/usage/export' }), 401, 'SVC-AUTH-001');
  });
});

describe('limits set here are enforced by the execution path', () => {
  it('refuses the next call over the per-call or daily limit with 402 SVC-CREDIT-002 (shape B)', async () => {
    const u = await t.createAccount();
    const c = as(t, u.apiKey);
    await fund(t, u.accountId, '10');
    expect((await c('PUT', '/v1/billing/limits', { perCallLimitUsdc: '0.4' })).statusCode).toBe(200);
    const perCall = await execute(t, u.apiKey, provA, 'echo', {});
    expect(perCall.statusCode).toBe(402);
    expect(perCall.json()).toMatchObject({ statusCode: 402, code: 'SVC-CREDIT-002' });
    expect(perCall.json().details.limitType).toMatch(/per.?call/);

    await c('PUT', '/v1/billing/limits', { perCallLimitUsdc: null, dailySpendLimitUsdc: '0.75' });
    expect((await execute(t, u.apiKey, provA, 'echo', {})).statusCode).toBe(200);
    const daily = await execute(t, u.apiKey, provA, 'echo', {});
    expect(daily.statusCode).toBe(402);
    expect(daily.json()).toMatchObject({ code: 'SVC-CREDIT-002', details: { limitType: 'daily' } });
    const balance = (await c('GET', '/v1/billing/balance')).json();
    expect(balance).toMatchObject({
      balanceCredits: '9500000',
      dailySpentCredits: '500000',
      dailySpendLimitCredits: '750000',
      perCallLimitCredits: null,
    });
    await expectInvariants(t);
  });
});
