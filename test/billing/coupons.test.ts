// Coupons: admin creation, redemption and its error codes, and the concurrency guarantees
// (max_redemptions across many accounts, one credit per account however many requests race).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../src/cli-admin.js';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { TestApp } from '../helpers/app.js';
import { as, balanceOf, createBillingApp, expectError, expectInvariants } from './helpers.js';

const clock = new ManualClock(new Date('2026-06-01T09:00:00.000Z'));
let t: TestApp;
let seq = 0;

beforeAll(async () => {
  t = await createBillingApp({ clock });
});
afterAll(async () => {
  await t?.close();
});

const uniqueCode = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

async function createCoupon(body: Record<string, unknown>) {
  const res = await t.admin('POST', '/v1/admin/coupons', body);
  expect(res.statusCode).toBe(201);
  return res.json().data;
}

async function newUser() {
  const u = await t.createAccount();
  return { ...u, call: as(t, u.apiKey) };
}

describe('POST /v1/admin/coupons', () => {
  it('creates a coupon (201, enveloped) with a case-insensitive code', async () => {
    const code = uniqueCode('Welcome');
    const res = await t.admin('POST', '/v1/admin/coupons', {
      code,
      credits_usdc: '2.5',
      description: 'Welcome credit',
      expires_at: '2026-07-01T00:00:00Z',
      max_redemptions: 100,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({
      id: expect.stringMatching(/^cpn_/),
      code: code.toUpperCase(),
      credits: '2500000',
      credits_usdc: '2.500000',
      description: 'Welcome credit',
      expires_at: '2026-07-01T00:00:00.000Z',
      max_redemptions: 100,
      redemptions: 0,
      created_at: clock.now().toISOString(),
    });
    expect(res.json().meta.request_id).toMatch(/^req_/);
    const dup = await t.admin('POST', '/v1/admin/coupons', {
      code: code.toLowerCase(),
      credits_usdc: '1',
      description: 'again',
    });
    expectError(dup, 409, 'SVC-VAL-007');
  });

  it('refuses bad bodies with SVC-VAL-001 and a missing admin token with SVC-AUTH-001', async () => {
    for (const body of [
      { credits_usdc: '1', description: 'x' },
      { code: 'has space', credits_usdc: '1', description: 'x' },
      { code: 'OK-CODE', credits_usdc: '0', description: 'x' },
      { code: 'OK-CODE', credits_usdc: 1, description: 'x' },
      { code: 'OK-CODE', credits_usdc: '1', description: '' },
      { code: 'OK-CODE', credits_usdc: '1', description: 'x', max_redemptions: 0 },
      { code: 'OK-CODE', credits_usdc: '1', description: 'x', expires_at: 'soon' },
      { code: 'OK-CODE', credits_usdc: '1', description: 'x', extra: true },
    ]) {
      expectError(await t.admin('POST', '/v1/admin/coupons', body), 400, 'SVC-VAL-001');
    }
    const u = await newUser();
    const asUser = await u.call('POST', '/v1/admin/coupons', {
      code: 'X1',
      credits_usdc: '1',
      description: 'x',
    });
    expectError(asUser, 401, 'SVC-AUTH-001');
  });
});

describe('svc admin create-coupon', () => {
  it('creates a coupon through the same service as the admin API', async () => {
    const command = adminCommands.find((c) => c.name === 'create-coupon');
    const code = uniqueCode('cli');
    const created = await command?.run(t.deps, {
      code,
      'credits-usdc': '1.25',
      description: 'From the CLI',
      'max-redemptions': '2',
    });
    expect(created).toMatchObject({ code: code.toUpperCase(), credits: '1250000', max_redemptions: 2 });
    const u = await newUser();
    expect((await u.call('POST', '/v1/billing/coupons/redeem', { code })).json().newBalance).toBe('1250000');
  });
});

describe('POST /v1/billing/coupons/redeem', () => {
  it('credits the account once with a coupon_credit entry (SPEC 2.18)', async () => {
    const code = uniqueCode('promo');
    const coupon = await createCoupon({ code, credits_usdc: '3', description: 'Promo' });
    const u = await newUser();
    const res = await u.call('POST', '/v1/billing/coupons/redeem', { code: code.toLowerCase() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      code: code.toUpperCase(),
      creditsGranted: '3000000',
      usdcEquivalent: '3.000000',
      description: 'Promo',
      newBalance: '3000000',
    });
    const [tx] = (await u.call('GET', '/v1/billing/transactions?type=coupon_credit')).json().transactions;
    expect(tx).toMatchObject({ type: 'coupon_credit', amountCredits: '3000000', referenceId: coupon.id });
    expectError(await u.call('POST', '/v1/billing/coupons/redeem', { code }), 409, 'SVC-COUPON-002');
    expect(await balanceOf(t, u.apiKey)).toBe(3_000_000n);
    await expectInvariants(t);
  });

  it('answers 404 for unknown codes, 410 once expired, and validates the body', async () => {
    const u = await newUser();
    expectError(
      await u.call('POST', '/v1/billing/coupons/redeem', { code: 'NOPE-NOPE' }),
      404,
      'SVC-COUPON-001',
    );
    const code = uniqueCode('soon');
    await createCoupon({ code, credits_usdc: '1', description: 'x', expires_at: '2026-06-01T10:00:00Z' });
    clock.set(new Date('2026-06-01T10:00:00.000Z'));
    const expired = await u.call('POST', '/v1/billing/coupons/redeem', { code });
    expectError(expired, 410, 'SVC-COUPON-003');
    expect(expired.json().error.details.reason).toBe('expired');
    clock.set(new Date('2026-06-01T09:00:00.000Z'));
    expect((await u.call('POST', '/v1/billing/coupons/redeem', { code })).statusCode).toBe(200);
    for (const body of [{}, { code: '' }, { code: 5 }, { code: 'A', other: 1 }]) {
      expectError(await u.call('POST', '/v1/billing/coupons/redeem', body), 400, 'SVC-VAL-001');
    }
    const none = await t.inject({ method: 'POST', url: '/v1/billing/coupons/redeem', payload: { code } });
    expectError(none, 401, 'SVC-AUTH-001');
  });

  it('never exceeds max_redemptions when many accounts redeem at once (410, reason exhausted)', async () => {
    const code = uniqueCode('limited');
    const coupon = await createCoupon({ code, credits_usdc: '1', description: 'x', max_redemptions: 5 });
    const users = await Promise.all(Array.from({ length: 12 }, () => newUser()));
    const results = await Promise.all(
      users.map((u) => u.call('POST', '/v1/billing/coupons/redeem', { code })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 410)).toHaveLength(7);
    for (const r of results.filter((x) => x.statusCode === 410)) {
      expect(r.json().error).toMatchObject({ code: 'SVC-COUPON-003', details: { reason: 'exhausted' } });
    }
    const row = await one<{ redemption_count: number }>(
      t.deps.db.orm,
      sql`SELECT redemption_count FROM coupons WHERE id = ${coupon.id}`,
    );
    expect(row?.redemption_count).toBe(5);
    const credited = await one<{ n: bigint }>(
      t.deps.db.orm,
      sql`SELECT count(*) AS n FROM ledger_entries WHERE type = 'coupon_credit' AND reference_id = ${coupon.id}`,
    );
    expect(credited?.n).toBe(5n);
    await expectInvariants(t);
  });

  it('credits once when the same account redeems many times at once', async () => {
    const code = uniqueCode('race');
    await createCoupon({ code, credits_usdc: '0.75', description: 'x' });
    const u = await newUser();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => u.call('POST', '/v1/billing/coupons/redeem', { code })),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) expectError(r, 409, 'SVC-COUPON-002');
    expect(await balanceOf(t, u.apiKey)).toBe(750_000n);
    await expectInvariants(t);
  });
});
