// Top-ups through Stripe: the SDK talks to a local fake speaking Stripe's wire format; webhooks are signed
// with the SDK's own test helper. Each event applies once, in any order, however often it arrives.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { execute, registerProvider } from '../execution/fixtures.js';
import type { TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  FAKE_STRIPE_KEY,
  FAKE_WEBHOOK_SECRET,
  type StripeFake,
  startStripeFake,
} from '../helpers/stripe-fake.js';
import { type As, as, balanceOf, createBillingApp, expectError, expectInvariants } from './helpers.js';

const clock = new ManualClock(new Date());
let fake: StripeFake;
let t: TestApp;
let providers: ProviderServer;

const nowS = () => Math.floor(clock.now().getTime() / 1000);

function webhook(payload: string, signature?: string) {
  return t.inject({
    method: 'POST',
    url: '/v1/billing/webhooks/stripe',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature === undefined ? {} : { 'stripe-signature': signature }),
    },
    payload,
  });
}

/** Delivers a body signed now, as Stripe would. */
async function deliver(payload: string) {
  const res = await webhook(payload, fake.sign(payload, { timestamp: nowS() }));
  expect(res.statusCode).toBe(200);
  return res.json() as { received: true; outcome: string };
}

async function topUp(c: As, cents: number) {
  const res = await c('POST', '/v1/billing/checkout', {
    amountUsdCents: cents,
    successUrl: 'https://app.example.com/ok?session={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://app.example.com/cancel',
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { checkoutUrl: string; sessionId: string; creditsToReceive: string };
}

async function newUser() {
  const u = await t.createAccount();
  return { ...u, call: as(t, u.apiKey) };
}

async function paymentOf(c: As) {
  return (await c('GET', '/v1/billing/payments')).json().payments[0];
}

beforeAll(async () => {
  fake = await startStripeFake();
  providers = await startProviderServer();
  t = await createBillingApp({
    clock,
    env: {
      STRIPE_SECRET_KEY: FAKE_STRIPE_KEY,
      STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.url,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
  await providers?.close();
});

describe('Stripe checkout', () => {
  it('creates a Checkout Session in payment mode through the SDK', async () => {
    const u = await newUser();
    const session = await topUp(u.call, 2500);
    expect(session.sessionId).toMatch(/^cs_test_/);
    expect(session.checkoutUrl).toBe(`https://checkout.stripe.com/c/pay/${session.sessionId}`);
    expect(session.creditsToReceive).toBe('25000000');
    const req = fake.requests.find((r) => r.path === '/v1/checkout/sessions');
    expect(req?.form).toMatchObject({
      mode: 'payment',
      line_items: { '0': { quantity: '1', price_data: { currency: 'usd', unit_amount: '2500' } } },
      success_url: 'https://app.example.com/ok?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://app.example.com/cancel',
    });
    const payment = await paymentOf(u.call);
    expect(req?.form.client_reference_id).toBe(payment.id);
    expect(req?.headers['idempotency-key']).toBe(payment.id);
    // Stripe's session outlives our 30 minutes by a margin; the payment expires at 30 minutes.
    expect(Number(req?.form.expires_at)).toBeGreaterThanOrEqual(nowS() + 30 * 60);
    expect(payment.status).toBe('pending');
  });

  it('answers 500 SVC-SYS-001 without Stripe internals and stores nothing when Stripe refuses', async () => {
    const u = await newUser();
    fake.failNext(400, 'Secret Stripe detail: account not activated');
    const res = await u.call('POST', '/v1/billing/checkout', {
      amountUsdCents: 1000,
      successUrl: 'https://app.example.com/ok',
      cancelUrl: 'https://app.example.com/cancel',
    });
    expectError(res, 500, 'SVC-SYS-001');
    expect(res.body).not.toContain('Secret Stripe detail');
    expect((await u.call('GET', '/v1/billing/payments')).json().pagination.total).toBe(0);
  });

  it('does not serve the local checkout page when Stripe is configured', async () => {
    expectError(await t.inject({ method: 'GET', url: '/checkout/cs_local_x' }), 404, 'SVC-VAL-006');
  });
});

describe('webhook signature', () => {
  it('refuses unsigned, mis-signed, stale, future and tampered bodies and changes nothing', async () => {
    const u = await newUser();
    const session = await topUp(u.call, 1000);
    const body = fake.completed(session.sessionId);
    const attempts = [
      await webhook(body),
      await webhook(body, ''),
      await webhook(body, 'garbage'),
      await webhook(body, fake.sign(body, { secret: 'whsec_wrong', timestamp: nowS() })),
      await webhook(body, fake.sign(body, { timestamp: nowS() - 301 })),
      await webhook(body, fake.sign(body, { timestamp: nowS() + 301 })),
      await webhook(body.replace('"paid"', '"paid" '), fake.sign(body, { timestamp: nowS() })),
      await webhook('', fake.sign('', { timestamp: nowS() })),
    ];
    for (const res of attempts) expectError(res, 400, 'SVC-VAL-001');
    expect(await balanceOf(t, u.apiKey)).toBe(0n);
    expect((await paymentOf(u.call)).status).toBe('pending');
    const events = await one<{ n: bigint }>(t.deps.db.orm, sql`SELECT count(*) AS n FROM processor_events`);
    expect(events?.n).toBe(0n);
    // Within tolerance it is accepted.
    await deliver(body);
    expect(await balanceOf(t, u.apiKey)).toBe(10_000_000n);
  });
});

describe('webhook events', () => {
  it('completed credits once: replays, a second completion and a late expiry change nothing', async () => {
    const u = await newUser();
    const session = await topUp(u.call, 5000);
    const completed = fake.completed(session.sessionId);
    expect((await deliver(completed)).outcome).toBe('applied');
    expect((await deliver(completed)).outcome).toBe('duplicate');
    expect((await deliver(fake.completed(session.sessionId))).outcome).toBe('no_change');
    expect((await deliver(fake.expired(session.sessionId))).outcome).toBe('no_change');
    expect((await deliver(fake.asyncPaymentFailed(session.sessionId))).outcome).toBe('no_change');
    expect(await balanceOf(t, u.apiKey)).toBe(50_000_000n);
    const payment = await paymentOf(u.call);
    expect(payment.status).toBe('completed');
    const txs = (await u.call('GET', '/v1/billing/transactions')).json().transactions;
    expect(txs).toHaveLength(1);
    expect(txs[0]).toMatchObject({
      type: 'deposit',
      referenceType: 'stripe_checkout',
      referenceId: payment.id,
    });
    await expectInvariants(t);
  });

  it('credits once when the same event is delivered many times at once', async () => {
    const u = await newUser();
    const session = await topUp(u.call, 800);
    const completed = fake.completed(session.sessionId);
    const signature = fake.sign(completed, { timestamp: nowS() });
    const results = await Promise.all(Array.from({ length: 10 }, () => webhook(completed, signature)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(results.filter((r) => r.json().outcome === 'applied')).toHaveLength(1);
    expect(await balanceOf(t, u.apiKey)).toBe(8_000_000n);
    await expectInvariants(t);
  });

  it('expired and async_payment_failed close a pending payment; an unpaid completion waits', async () => {
    const u = await newUser();
    const a = await topUp(u.call, 600);
    expect((await deliver(fake.completed(a.sessionId, { paymentStatus: 'unpaid' }))).outcome).toBe('ignored');
    expect((await paymentOf(u.call)).status).toBe('pending');
    expect((await deliver(fake.asyncPaymentFailed(a.sessionId))).outcome).toBe('applied');
    expect((await paymentOf(u.call)).status).toBe('failed');

    const b = await topUp(u.call, 700);
    expect((await deliver(fake.expired(b.sessionId))).outcome).toBe('applied');
    expect((await paymentOf(u.call)).status).toBe('expired');
    expect(await balanceOf(t, u.apiKey)).toBe(0n);
  });

  it('a paid completion after our expiry still credits: the money has moved', async () => {
    const u = await newUser();
    const s = await topUp(u.call, 900);
    expect((await deliver(fake.expired(s.sessionId))).outcome).toBe('applied');
    expect((await deliver(fake.completed(s.sessionId))).outcome).toBe('applied');
    expect((await paymentOf(u.call)).status).toBe('completed');
    expect(await balanceOf(t, u.apiKey)).toBe(9_000_000n);
  });

  it('acknowledges events about unknown sessions and event types it does not use', async () => {
    const u = await newUser();
    const s = await topUp(u.call, 500);
    const foreign = fake.completed(s.sessionId).replaceAll(s.sessionId, 'cs_test_someone_else');
    const unknownClientRef = foreign.replace(/"client_reference_id": "[^"]+"/, '"client_reference_id": null');
    expect((await deliver(unknownClientRef)).outcome).toBe('unknown_payment');
    const other = JSON.stringify({
      id: 'evt_other_1',
      object: 'event',
      type: 'payment_intent.created',
      data: { object: { id: 'pi_1', object: 'payment_intent' } },
    });
    expect((await deliver(other)).outcome).toBe('ignored');
    expect(await balanceOf(t, u.apiKey)).toBe(0n);
  });
});

describe('refunds', () => {
  it('a refund arriving before the completion applies when the completion arrives', async () => {
    for (const withMetadata of [false, true]) {
      const u = await newUser();
      const s = await topUp(u.call, 1500);
      expect((await deliver(fake.refunded(s.sessionId, undefined, { withMetadata }))).outcome).toBe(
        'deferred',
      );
      expect(await balanceOf(t, u.apiKey)).toBe(0n);
      expect((await deliver(fake.completed(s.sessionId))).outcome).toBe('applied');
      expect(await balanceOf(t, u.apiKey)).toBe(0n);
      const payment = await paymentOf(u.call);
      expect(payment.status).toBe('refunded');
      const txs = (await u.call('GET', '/v1/billing/transactions')).json().transactions;
      expect(txs.map((x: { type: string; amountCredits: string }) => [x.type, x.amountCredits])).toEqual([
        ['payment_refund', '-15000000'],
        ['deposit', '15000000'],
      ]);
    }
    await expectInvariants(t);
  });

  it('partial then full refunds take back the difference each time; replays take nothing', async () => {
    const u = await newUser();
    const s = await topUp(u.call, 2000);
    await deliver(fake.completed(s.sessionId));
    const partial = fake.refunded(s.sessionId, 500);
    expect((await deliver(partial)).outcome).toBe('applied');
    expect(await balanceOf(t, u.apiKey)).toBe(15_000_000n);
    expect((await deliver(partial)).outcome).toBe('duplicate');
    expect((await deliver(fake.refunded(s.sessionId, 500))).outcome).toBe('no_change');
    expect((await deliver(fake.refunded(s.sessionId, 2000))).outcome).toBe('applied');
    expect(await balanceOf(t, u.apiKey)).toBe(0n);
    expect((await paymentOf(u.call)).status).toBe('refunded');
    // A completion replayed after the refund changes nothing.
    expect((await deliver(fake.completed(s.sessionId))).outcome).toBe('no_change');
    expect(await balanceOf(t, u.apiKey)).toBe(0n);
    await expectInvariants(t);
  });

  it('takes back at most what remains and records the shortfall when credits were spent', async () => {
    const u = await newUser();
    const provider = await registerProvider(t, providers.url, [{ slug: 'echo', price_usdc: '4' }]);
    const s = await topUp(u.call, 1000);
    await deliver(fake.completed(s.sessionId));
    const spent = await execute(t, u.apiKey, provider.providerId, 'echo', {});
    expect(spent.statusCode).toBe(200);
    expect(await balanceOf(t, u.apiKey)).toBe(6_000_000n);

    expect((await deliver(fake.refunded(s.sessionId))).outcome).toBe('applied');
    expect(await balanceOf(t, u.apiKey)).toBe(0n);
    const payment = await paymentOf(u.call);
    expect(payment.status).toBe('refunded');
    const row = await one<{ refund_debited_credits: bigint; refund_shortfall_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT refund_debited_credits, refund_shortfall_credits FROM payments WHERE id = ${payment.id}`,
    );
    expect(row).toEqual({ refund_debited_credits: 6_000_000n, refund_shortfall_credits: 4_000_000n });
    const [refund] = (await u.call('GET', '/v1/billing/transactions?type=payment_refund')).json()
      .transactions;
    expect(refund).toMatchObject({ amountCredits: '-6000000', balanceAfter: '0', referenceId: payment.id });
    await expectInvariants(t);
  });
});
