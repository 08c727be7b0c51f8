// Top-ups with the local processor: checkout validation, the checkout page's Pay and Cancel, payments
// list, receipts and the 30-minute expiry job.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { expireStalePayments } from '../../src/modules/billing/payments.js';
import type { TestApp } from '../helpers/app.js';
import { type As, as, balanceOf, createBillingApp, expectError, expectInvariants } from './helpers.js';

const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
let t: TestApp;
let user: { accountId: string; apiKey: string };
let call: As;

const checkoutBody = (amountUsdCents: number) => ({
  amountUsdCents,
  successUrl: 'https://app.example.com/billing/success?session={CHECKOUT_SESSION_ID}',
  cancelUrl: 'https://app.example.com/billing/cancel',
});

async function checkout(c: As, cents: number) {
  const res = await c('POST', '/v1/billing/checkout', checkoutBody(cents));
  expect(res.statusCode).toBe(200);
  return res.json() as { checkoutUrl: string; sessionId: string; creditsToReceive: string };
}

const pathOf = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  t = await createBillingApp({ clock });
  user = await t.createAccount();
  call = as(t, user.apiKey);
});
afterAll(async () => {
  await t?.close();
});

describe('POST /v1/billing/checkout', () => {
  it('opens a local checkout session for the amount, credits = cents x 10,000', async () => {
    const res = await call('POST', '/v1/billing/checkout', checkoutBody(2500));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['checkoutUrl', 'creditsToReceive', 'sessionId']);
    expect(body.creditsToReceive).toBe('25000000');
    expect(body.sessionId).toMatch(/^cs_local_[0-9A-Za-z]{32}$/);
    expect(body.checkoutUrl).toBe(`${t.config.publicUrl}/checkout/${body.sessionId}`);
  });

  it('accepts the bounds 500 and 1,000,000 cents and refuses one cent outside them', async () => {
    expect((await checkout(call, 500)).creditsToReceive).toBe('5000000');
    expect((await checkout(call, 1_000_000)).creditsToReceive).toBe('10000000000');
    expectError(await call('POST', '/v1/billing/checkout', checkoutBody(499)), 400, 'SVC-BILLING-001');
    expectError(await call('POST', '/v1/billing/checkout', checkoutBody(0)), 400, 'SVC-BILLING-001');
    expectError(await call('POST', '/v1/billing/checkout', checkoutBody(-500)), 400, 'SVC-BILLING-001');
    expectError(await call('POST', '/v1/billing/checkout', checkoutBody(1_000_001)), 400, 'SVC-BILLING-002');
  });

  it('refuses non-integer, missing or mistyped fields and non-http(s) redirect URLs with SVC-VAL-001', async () => {
    const bad = [
      { ...checkoutBody(1000), amountUsdCents: 12.5 },
      { ...checkoutBody(1000), amountUsdCents: '1000' },
      { successUrl: 'https://a.example/s', cancelUrl: 'https://a.example/c' },
      { amountUsdCents: 1000, cancelUrl: 'https://a.example/c' },
      { ...checkoutBody(1000), successUrl: 'javascript:alert(1)' },
      { ...checkoutBody(1000), cancelUrl: 'ftp://a.example/c' },
      { ...checkoutBody(1000), successUrl: 'not a url' },
      { ...checkoutBody(1000), extra: true },
    ];
    for (const body of bad) {
      const res = await call('POST', '/v1/billing/checkout', body);
      expectError(res, 400, 'SVC-VAL-001');
      expect(res.json().error.details.errors.length).toBeGreaterThan(0);
    }
  });

  it('needs a valid credential of an active account', async () => {
    const none = await t.inject({ method: 'POST', url: '/v1/billing/checkout', payload: checkoutBody(1000) });
    expectError(none, 401, 'SVC-AUTH-001');
    const wrong = await as(t, `svc_sk_${'x'.repeat(40)}`)('POST', '/v1/billing/checkout', checkoutBody(1000));
    expectError(wrong, 401, 'SVC-AUTH-001');
    const other = await t.createAccount();
    await t.deps.db.orm.execute(sql`UPDATE accounts SET status = 'suspended' WHERE id = ${other.accountId}`);
    expectError(
      await as(t, other.apiKey)('POST', '/v1/billing/checkout', checkoutBody(1000)),
      403,
      'SVC-AUTH-004',
    );
  });
});

describe('local checkout page', () => {
  it('shows the amount with Pay and Cancel forms; Pay credits once even when posted twice', async () => {
    const payer = await t.createAccount();
    const c = as(t, payer.apiKey);
    const session = await checkout(c, 1234);
    const page = await t.inject({ method: 'GET', url: pathOf(session.checkoutUrl) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('$12.34');
    expect(page.body).toContain(`action="/checkout/${session.sessionId}/pay"`);
    expect(page.body).toContain(`action="/checkout/${session.sessionId}/cancel"`);

    const pay = () =>
      t.inject({
        method: 'POST',
        url: `/checkout/${session.sessionId}/pay`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
    const first = await pay();
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(
      `https://app.example.com/billing/success?session=${session.sessionId}`,
    );
    const second = await pay();
    expect(second.statusCode).toBe(303);
    expect(await balanceOf(t, payer.apiKey)).toBe(12_340_000n);

    const payments = (await c('GET', '/v1/billing/payments')).json();
    expect(payments.pagination).toEqual({ page: 1, limit: 20, total: 1 });
    const [p] = payments.payments;
    expect(p).toMatchObject({ amountUsd: '12.34', creditsGranted: '12340000', status: 'completed' });
    expect(p.completedAt).toBe(clock.now().toISOString());
    expect(p.receiptUrl).toBe(`${t.config.publicUrl}/receipts/${p.id}`);

    const txs = (await c('GET', '/v1/billing/transactions')).json().transactions;
    expect(txs).toHaveLength(1);
    expect(txs[0]).toMatchObject({
      type: 'deposit',
      amountCredits: '12340000',
      amountUsdc: '12.340000',
      balanceAfter: '12340000',
      referenceType: 'local_checkout',
      referenceId: p.id,
    });
    const acct = await one<{ successful_payments: bigint }>(
      t.deps.db.orm,
      sql`SELECT successful_payments FROM accounts WHERE id = ${payer.accountId}`,
    );
    expect(acct?.successful_payments).toBe(1n);

    const receipt = await t.inject({ method: 'GET', url: pathOf(p.receiptUrl) });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain('$12.34');
    expect(receipt.body).toContain('completed');
    // Once paid, the page no longer offers to pay.
    const after = await t.inject({ method: 'GET', url: pathOf(session.checkoutUrl) });
    expect(after.body).not.toContain('/pay"');
    await expectInvariants(t);
  });

  it('pays once when Pay is posted many times at once', async () => {
    const payer = await t.createAccount();
    const session = await checkout(as(t, payer.apiKey), 700);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.inject({ method: 'POST', url: `/checkout/${session.sessionId}/pay` }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(303));
    expect(await balanceOf(t, payer.apiKey)).toBe(7_000_000n);
    await expectInvariants(t);
  });

  it('Cancel closes the session as expired and redirects; Pay afterwards is refused', async () => {
    const payer = await t.createAccount();
    const c = as(t, payer.apiKey);
    const session = await checkout(c, 900);
    const cancel = await t.inject({ method: 'POST', url: `/checkout/${session.sessionId}/cancel` });
    expect(cancel.statusCode).toBe(303);
    expect(cancel.headers.location).toBe('https://app.example.com/billing/cancel');
    const pay = await t.inject({ method: 'POST', url: `/checkout/${session.sessionId}/pay` });
    expect(pay.statusCode).toBe(409);
    expect(pay.body).toContain('no longer open');
    expect(await balanceOf(t, payer.apiKey)).toBe(0n);
    const [p] = (await c('GET', '/v1/billing/payments')).json().payments;
    expect(p).toMatchObject({ status: 'expired', completedAt: null });
  });

  it('has no Stripe webhook without Stripe keys', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/billing/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{}',
    });
    expectError(res, 404, 'SVC-VAL-006');
  });

  it('answers 404 pages for unknown sessions and receipts', async () => {
    expect((await t.inject({ method: 'GET', url: '/checkout/cs_local_nope' })).statusCode).toBe(404);
    expect((await t.inject({ method: 'POST', url: '/checkout/cs_local_nope/pay' })).statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: '/receipts/pay_nope' })).statusCode).toBe(404);
  });
});

describe('expiry after 30 minutes', () => {
  it('the job expires pending payments 30 minutes after creation, not before', async () => {
    const payer = await t.createAccount();
    const c = as(t, payer.apiKey);
    const session = await checkout(c, 600);
    clock.advance(29 * 60_000);
    await expireStalePayments(t.deps);
    expect((await c('GET', '/v1/billing/payments')).json().payments[0].status).toBe('pending');
    clock.advance(60_000);
    expect(await expireStalePayments(t.deps)).toBeGreaterThanOrEqual(1);
    expect((await c('GET', '/v1/billing/payments')).json().payments[0].status).toBe('expired');
    const pay = await t.inject({ method: 'POST', url: `/checkout/${session.sessionId}/pay` });
    expect(pay.statusCode).toBe(409);
    expect(await balanceOf(t, payer.apiKey)).toBe(0n);
  });

  it('a page past its lifetime refuses to pay even before the job ran', async () => {
    const payer = await t.createAccount();
    const c = as(t, payer.apiKey);
    const session = await checkout(c, 600);
    clock.advance(31 * 60_000);
    const page = await t.inject({ method: 'GET', url: `/checkout/${session.sessionId}` });
    expect(page.body).toContain('no longer open');
    const pay = await t.inject({ method: 'POST', url: `/checkout/${session.sessionId}/pay` });
    expect(pay.statusCode).toBe(409);
    expect((await c('GET', '/v1/billing/payments')).json().payments[0].status).toBe('expired');
    expect(await balanceOf(t, payer.apiKey)).toBe(0n);
  });
});

describe('GET /v1/billing/payments', () => {
  it('pages newest first with an exact total, only the caller’s payments', async () => {
    const payer = await t.createAccount();
    const c = as(t, payer.apiKey);
    const created = [];
    for (const cents of [501, 502, 503]) {
      created.push(await checkout(c, cents));
      clock.advance(1000);
    }
    const p1 = (await c('GET', '/v1/billing/payments?page=1&limit=2')).json();
    expect(p1.pagination).toEqual({ page: 1, limit: 2, total: 3 });
    expect(p1.payments.map((p: { amountUsd: string }) => p.amountUsd)).toEqual(['5.03', '5.02']);
    const p2 = (await c('GET', '/v1/billing/payments?page=2&limit=2')).json();
    expect(p2.payments.map((p: { amountUsd: string }) => p.amountUsd)).toEqual(['5.01']);
    const p3 = (await c('GET', '/v1/billing/payments?page=3&limit=2')).json();
    expect(p3).toEqual({ payments: [], pagination: { page: 3, limit: 2, total: 3 } });
    for (const q of ['page=0', 'limit=0', 'limit=101', 'page=x', 'limit=2.5', 'unknown=1']) {
      expectError(await c('GET', `/v1/billing/payments?${q}`), 400, 'SVC-VAL-001');
    }
    const stranger = await t.createAccount();
    const none = (await as(t, stranger.apiKey)('GET', '/v1/billing/payments')).json();
    expect(none).toEqual({ payments: [], pagination: { page: 1, limit: 20, total: 0 } });
  });
});
