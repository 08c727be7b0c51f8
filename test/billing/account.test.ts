// Balance, transactions, spending limits and alert preferences of the billing API.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one, rows } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { fund } from '../execution/fixtures.js';
import type { TestApp } from '../helpers/app.js';
import { as, createBillingApp, expectError, expectInvariants } from './helpers.js';

const clock = new ManualClock(new Date('2026-05-20T15:00:00.000Z'));
let t: TestApp;

beforeAll(async () => {
  t = await createBillingApp({ clock });
});
afterAll(async () => {
  await t?.close();
});

async function newUser() {
  const u = await t.createAccount();
  return { ...u, call: as(t, u.apiKey) };
}

describe('GET /v1/billing/balance', () => {
  it('shows a new account with nothing spent, no limits and no threshold', async () => {
    const u = await newUser();
    const res = await u.call('GET', '/v1/billing/balance');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      balanceCredits: '0',
      balanceUsdc: '0.000000',
      dailySpentCredits: '0',
      dailySpentUsdc: '0.000000',
      dailySpendLimitCredits: null,
      dailySpendLimitUsdc: null,
      perCallLimitCredits: null,
      perCallLimitUsdc: null,
      lowBalanceAlertThreshold: '0',
      status: 'active',
    });
  });

  it('counts daily spend only for the current UTC day', async () => {
    const u = await newUser();
    await fund(t, u.accountId, '12.5');
    await t.deps.db.orm.execute(
      sql`UPDATE accounts SET daily_spent_credits = 2500000, daily_spent_day = '2026-05-20' WHERE id = ${u.accountId}`,
    );
    await u.call('PUT', '/v1/billing/limits', { dailySpendLimitUsdc: '10', perCallLimitUsdc: '0.25' });
    await u.call('PUT', '/v1/billing/alerts', { lowBalanceThresholdUsdc: '1.5' });
    const today = (await u.call('GET', '/v1/billing/balance')).json();
    expect(today).toEqual({
      balanceCredits: '12500000',
      balanceUsdc: '12.500000',
      dailySpentCredits: '2500000',
      dailySpentUsdc: '2.500000',
      dailySpendLimitCredits: '10000000',
      dailySpendLimitUsdc: '10.000000',
      perCallLimitCredits: '250000',
      perCallLimitUsdc: '0.250000',
      lowBalanceAlertThreshold: '1500000',
      status: 'active',
    });
    clock.set(new Date('2026-05-20T23:59:59.999Z'));
    expect((await u.call('GET', '/v1/billing/balance')).json().dailySpentCredits).toBe('2500000');
    clock.set(new Date('2026-05-21T00:00:00.000Z'));
    const tomorrow = (await u.call('GET', '/v1/billing/balance')).json();
    expect([tomorrow.dailySpentCredits, tomorrow.dailySpentUsdc]).toEqual(['0', '0.000000']);
    clock.set(new Date('2026-05-20T15:00:00.000Z'));
  });

  it('needs a credential', async () => {
    expectError(await t.inject({ method: 'GET', url: '/v1/billing/balance' }), 401, 'SVC-AUTH-001');
  });
});

describe('GET /v1/billing/transactions', () => {
  /** Five credits of 1..5 USDC, dated one day apart from 2026-05-01, plus a coupon-like credit type. */
  async function seeded() {
    const u = await newUser();
    for (let i = 1; i <= 5; i++) await fund(t, u.accountId, String(i));
    const entries = await rows<{ seq: bigint }>(
      t.deps.db.orm,
      sql`SELECT seq FROM ledger_entries WHERE account_id = ${u.accountId} ORDER BY seq`,
    );
    // Test arrangement: spread the entries over days so that date filters have something to cut.
    for (const [i, e] of entries.entries()) {
      const at = new Date(Date.UTC(2026, 4, 1 + i, 10, 0, 0)).toISOString();
      await t.deps.db.orm.execute(sql`UPDATE ledger_entries SET created_at = ${at} WHERE seq = ${e.seq}`);
    }
    return u;
  }

  it('lists newest first with exact totals and stable pages', async () => {
    const u = await seeded();
    const all = (await u.call('GET', '/v1/billing/transactions')).json();
    expect(all.pagination).toEqual({ page: 1, limit: 20, total: 5 });
    expect(all.transactions.map((x: { amountUsdc: string }) => x.amountUsdc)).toEqual([
      '5.000000',
      '4.000000',
      '3.000000',
      '2.000000',
      '1.000000',
    ]);
    expect(all.transactions[0]).toEqual({
      id: expect.stringMatching(/^txn_/),
      type: 'admin_credit',
      amountCredits: '5000000',
      amountUsdc: '5.000000',
      balanceAfter: '15000000',
      description: 'test funding',
      referenceType: 'admin',
      referenceId: null,
      providerId: null,
      capabilityId: null,
      createdAt: '2026-05-05T10:00:00.000Z',
    });
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const res = (await u.call('GET', `/v1/billing/transactions?page=${page}&limit=2`)).json();
      expect(res.pagination).toEqual({ page, limit: 2, total: 5 });
      pages.push(...res.transactions.map((x: { id: string }) => x.id));
    }
    expect(pages).toEqual(all.transactions.map((x: { id: string }) => x.id));
    const beyond = (await u.call('GET', '/v1/billing/transactions?page=9&limit=2')).json();
    expect(beyond).toEqual({ transactions: [], pagination: { page: 9, limit: 2, total: 5 } });
    expect((await u.call('GET', '/v1/billing/transactions?limit=100')).statusCode).toBe(200);
  });

  it('filters by type and by from (inclusive) / to (exclusive, a bare day through its end)', async () => {
    const u = await seeded();
    const get = async (q: string) => (await u.call('GET', `/v1/billing/transactions?${q}`)).json();
    expect((await get('type=deposit')).pagination.total).toBe(0);
    expect((await get('type=admin_credit')).pagination.total).toBe(5);
    const amounts = (r: { transactions: { amountUsdc: string }[] }) =>
      r.transactions.map((x) => x.amountUsdc);
    expect(amounts(await get('from=2026-05-02&to=2026-05-04'))).toEqual(['4.000000', '3.000000', '2.000000']);
    expect(amounts(await get('from=2026-05-02T10:00:00Z&to=2026-05-04T10:00:00Z'))).toEqual([
      '3.000000',
      '2.000000',
    ]);
    expect(amounts(await get('from=2026-05-05T10:00:00.001Z'))).toEqual([]);
    expect(amounts(await get('to=2026-05-01'))).toEqual(['1.000000']);
    const combined = await get('type=admin_credit&from=2026-05-03&limit=1&page=2');
    expect(combined.pagination).toEqual({ page: 2, limit: 1, total: 3 });
    expect(amounts(combined)).toEqual(['4.000000']);
  });

  it('refuses bad paging, types and dates with SVC-VAL-001', async () => {
    const u = await newUser();
    for (const q of [
      'limit=101',
      'limit=0',
      'page=0',
      'page=-1',
      'type=call',
      'from=yesterday',
      'from=2026-02-30',
      'to=2026-13-01',
      'from=2026-05-03&to=2026-05-02',
      'from=2026-05-03T00:00:00Z&to=2026-05-03T00:00:00Z',
      'extra=1',
    ]) {
      expectError(await u.call('GET', `/v1/billing/transactions?${q}`), 400, 'SVC-VAL-001');
    }
  });
});

describe('PUT /v1/billing/limits', () => {
  it('sets either or both, null removes, and answers SPEC 2.11', async () => {
    const u = await newUser();
    const both = await u.call('PUT', '/v1/billing/limits', {
      dailySpendLimitUsdc: '50',
      perCallLimitUsdc: '0.5',
    });
    expect(both.statusCode).toBe(200);
    expect(both.json()).toEqual({
      dailySpendLimitUsdc: '50.000000',
      perCallLimitUsdc: '0.500000',
      dailySpendLimitCredits: '50000000',
      perCallLimitCredits: '500000',
    });
    const one_ = await u.call('PUT', '/v1/billing/limits', { perCallLimitUsdc: '0.000001' });
    expect(one_.json()).toEqual({
      dailySpendLimitUsdc: '50.000000',
      perCallLimitUsdc: '0.000001',
      dailySpendLimitCredits: '50000000',
      perCallLimitCredits: '1',
    });
    const removed = await u.call('PUT', '/v1/billing/limits', { dailySpendLimitUsdc: null });
    expect(removed.json()).toMatchObject({ dailySpendLimitUsdc: null, dailySpendLimitCredits: null });
    const row = await one<{ daily_limit_credits: bigint | null; per_call_limit_credits: bigint | null }>(
      t.deps.db.orm,
      sql`SELECT daily_limit_credits, per_call_limit_credits FROM accounts WHERE id = ${u.accountId}`,
    );
    expect(row).toEqual({ daily_limit_credits: null, per_call_limit_credits: 1n });
  });

  it('refuses non-USDC strings, zero, numbers, empty bodies and unknown fields', async () => {
    const u = await newUser();
    for (const body of [
      {},
      { dailySpendLimitUsdc: 10 },
      { dailySpendLimitUsdc: '0' },
      { dailySpendLimitUsdc: '0.000000' },
      { dailySpendLimitUsdc: '-1' },
      { dailySpendLimitUsdc: '1.0000001' },
      { dailySpendLimitUsdc: '1e3' },
      { dailySpendLimitUsdc: ' 1' },
      { perCallLimitUsdc: 'abc' },
      { perCallLimitUsdc: '1', other: '2' },
    ]) {
      expectError(await u.call('PUT', '/v1/billing/limits', body), 400, 'SVC-VAL-001');
    }
    const row = await one<{ daily_limit_credits: bigint | null }>(
      t.deps.db.orm,
      sql`SELECT daily_limit_credits FROM accounts WHERE id = ${u.accountId}`,
    );
    expect(row?.daily_limit_credits).toBeNull();
  });
});

describe('GET /v1/billing/limits and /v1/billing/alerts', () => {
  it('answer the defaults of a new account, then what the last PUT stored, in the PUT shapes', async () => {
    const u = await newUser();
    const limits = await u.call('GET', '/v1/billing/limits');
    expect(limits.statusCode).toBe(200);
    expect(limits.json()).toEqual({
      dailySpendLimitUsdc: null,
      perCallLimitUsdc: null,
      dailySpendLimitCredits: null,
      perCallLimitCredits: null,
    });
    const alerts = await u.call('GET', '/v1/billing/alerts');
    expect(alerts.statusCode).toBe(200);
    expect(alerts.json()).toEqual({
      lowBalanceThresholdUsdc: '0.000000',
      emailNotifications: {
        lowBalance: false,
        dailyLimitReached: true,
        keyLimitReached: true,
        paymentConfirmed: true,
        creditsRefunded: false,
        unusualActivity: false,
        dailySummary: false,
        weeklySummary: false,
      },
    });

    const putLimits = await u.call('PUT', '/v1/billing/limits', { dailySpendLimitUsdc: '12.5' });
    expect((await u.call('GET', '/v1/billing/limits')).json()).toEqual(putLimits.json());
    expect(putLimits.json().dailySpendLimitCredits).toBe('12500000');
    const putAlerts = await u.call('PUT', '/v1/billing/alerts', {
      lowBalanceThresholdUsdc: '2',
      emailNotifications: { dailySummary: true },
    });
    expect((await u.call('GET', '/v1/billing/alerts')).json()).toEqual(putAlerts.json());
    expect(putAlerts.json().emailNotifications.dailySummary).toBe(true);

    // Each account reads its own values.
    const other = await newUser();
    expect((await other.call('GET', '/v1/billing/limits')).json().dailySpendLimitUsdc).toBeNull();
  });
});

describe('PUT /v1/billing/alerts', () => {
  it('stores the threshold and merges e-mail preferences over the SPEC defaults', async () => {
    const u = await newUser();
    const res = await u.call('PUT', '/v1/billing/alerts', {
      lowBalanceThresholdUsdc: '5',
      emailNotifications: { lowBalance: true, paymentConfirmed: false },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      lowBalanceThresholdUsdc: '5.000000',
      emailNotifications: {
        lowBalance: true,
        dailyLimitReached: true,
        keyLimitReached: true,
        paymentConfirmed: false,
        creditsRefunded: false,
        unusualActivity: false,
        dailySummary: false,
        weeklySummary: false,
      },
    });
    const second = await u.call('PUT', '/v1/billing/alerts', { emailNotifications: { weeklySummary: true } });
    expect(second.json().lowBalanceThresholdUsdc).toBe('5.000000');
    expect(second.json().emailNotifications).toMatchObject({ lowBalance: true, weeklySummary: true });
    const row = await one<{ low_balance_threshold_credits: bigint | null; email_prefs: unknown }>(
      t.deps.db.orm,
      sql`SELECT low_balance_threshold_credits, email_prefs FROM accounts WHERE id = ${u.accountId}`,
    );
    expect(row?.low_balance_threshold_credits).toBe(5_000_000n);
    expect(row?.email_prefs).toEqual({ lowBalance: true, paymentConfirmed: false, weeklySummary: true });
    const cleared = await u.call('PUT', '/v1/billing/alerts', { lowBalanceThresholdUsdc: null });
    expect(cleared.json().lowBalanceThresholdUsdc).toBe('0.000000');
    expect((await u.call('GET', '/v1/billing/balance')).json().lowBalanceAlertThreshold).toBe('0');
  });

  it('refuses unknown keys, non-booleans and bad amounts', async () => {
    const u = await newUser();
    for (const body of [
      {},
      { emailNotifications: { lowBalance: 'yes' } },
      { emailNotifications: { somethingElse: true } },
      { lowBalanceThresholdUsdc: 5 },
      { lowBalanceThresholdUsdc: '-5' },
      { lowBalanceThresholdUsdc: '5', extra: 1 },
    ]) {
      expectError(await u.call('PUT', '/v1/billing/alerts', body), 400, 'SVC-VAL-001');
    }
    await expectInvariants(t);
  });
});
