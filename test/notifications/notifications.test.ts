// The per-event notifications over real SMTP, driven through the real HTTP paths (local checkout, execute
// against a local provider, billing limits and alerts, admin suspend, e-mail login): recipients, subjects
// and content, preference switches and defaults, cooldowns on the service clock, wallet-only accounts.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { onAccountSuspended, onDailyLimitReached } from '../../src/modules/notifications/triggers.js';
import type { TestApp } from '../helpers/app.js';
import { createNotifyEnv, FROM, fact, type NotifyEnv, PROVIDER_ID, PUBLIC_URL } from './setup.js';
import type { ReceivedMail } from './smtp.js';

const HOUR = 60 * 60_000;
const clock = new ManualClock(new Date());
let env: NotifyEnv;
let t: TestApp;
let account: NotifyEnv['account'];
let as: NotifyEnv['as'];
let fund: NotifyEnv['fund'];
let alerts: NotifyEnv['alerts'];
let execute: NotifyEnv['execute'];
let deliveredTo: NotifyEnv['deliveredTo'];
const providerId = PROVIDER_ID;

beforeAll(async () => {
  env = await createNotifyEnv(clock);
  ({ t, account, as, fund, alerts, execute, deliveredTo } = env);
});
afterAll(async () => {
  await env?.close();
});
beforeEach(() => clock.set(new Date()));

const subjects = async (email: string) => (await deliveredTo(email)).map((m) => m.subject);

function expectWellFormed(mail: ReceivedMail | undefined, to: string) {
  expect(mail?.envelopeTo).toEqual([to]);
  expect(mail?.headers.to).toBe(to);
  expect(mail?.headers.from).toBe(FROM);
  expect(mail?.envelopeFrom).toBe('alerts@svc.example.test');
  expect(mail?.headers['content-type']).toMatch(/^multipart\/alternative/);
  expect(mail?.text.length).toBeGreaterThan(0);
  expect(mail?.html).toMatch(/^<!doctype html>/);
  for (const href of mail?.html.matchAll(/href="([^"]+)"/g) ?? []) {
    expect(href[1]).toMatch(/^https:\/\/svc\.example\.test(\/|$)/);
  }
}

describe('payment confirmed', () => {
  it('is mailed after a local checkout with amount, credits, receipt link and new balance, even when switched off, once', async () => {
    const a = await account();
    await fund(a, '3');
    await alerts(a, { emailNotifications: { paymentConfirmed: false } });
    const checkout = await as(a, 'POST', '/v1/billing/checkout', {
      amountUsdCents: 12340,
      successUrl: 'https://app.example.com/ok',
      cancelUrl: 'https://app.example.com/cancel',
    });
    expect(checkout.statusCode).toBe(200);
    const { sessionId } = checkout.json();
    for (let i = 0; i < 2; i++) {
      // Pay pressed twice: one payment, one mail.
      const pay = await t.inject({ method: 'POST', url: `/checkout/${sessionId}/pay` });
      expect(pay.statusCode).toBe(303);
    }
    const mails = await deliveredTo(a.email);
    expect(mails).toHaveLength(1);
    const mail = mails[0];
    expectWellFormed(mail, a.email);
    expect(mail?.subject).toBe('Payment confirmed: 123.40 USD added to your balance');
    expect(fact(mail, 'Amount paid')).toBe('123.40 USD');
    expect(fact(mail, 'Credits added')).toBe('123400000 credits (123.400000 USDC)');
    expect(fact(mail, 'New balance')).toBe('126400000 credits (126.400000 USDC)');
    const paymentId = fact(mail, 'Payment') as string;
    expect(paymentId).toMatch(/^pay_/);
    expect(fact(mail, 'Receipt')).toBe(`${PUBLIC_URL}/receipts/${paymentId}`);
    expect(mail?.html).toContain(`<a href="${PUBLIC_URL}/receipts/${paymentId}">Receipt</a>`);
    expect((await t.inject({ method: 'GET', url: `/receipts/${paymentId}` })).statusCode).toBe(200);
    expect(mail?.text).toContain('cannot be switched off');
  });
});

describe('low balance', () => {
  it('is off by default', async () => {
    const a = await account();
    await fund(a, '6');
    await alerts(a, { lowBalanceThresholdUsdc: '5' });
    for (let i = 0; i < 3; i++) expect((await execute(a, 'echo')).statusCode).toBe(200);
    expect(await deliveredTo(a.email)).toHaveLength(0);
  });

  it('is mailed when the balance drops below the threshold, at most once per 24 h per threshold', async () => {
    const a = await account();
    await fund(a, '6');
    await alerts(a, { lowBalanceThresholdUsdc: '5', emailNotifications: { lowBalance: true } });
    await execute(a, 'echo'); // 5: not below
    expect(await deliveredTo(a.email)).toHaveLength(0);
    await execute(a, 'echo'); // 4: crossed
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expectWellFormed(mail, a.email);
    expect(mail?.subject).toBe('Low balance: 4.000000 USDC left');
    expect(fact(mail, 'Balance')).toBe('4000000 credits (4.000000 USDC)');
    expect(fact(mail, 'Alert threshold')).toBe('5000000 credits (5.000000 USDC)');
    expect(mail?.text).toContain(
      `PUT ${PUBLIC_URL}/v1/billing/alerts with {"emailNotifications": {"lowBalance": false}}`,
    );

    await execute(a, 'echo'); // 3: below, but no new crossing
    await fund(a, '3'); // 6
    clock.advance(23 * HOUR);
    await execute(a, 'echo');
    await execute(a, 'echo'); // 4: crossed again within 24 h of the alert
    expect(await deliveredTo(a.email)).toHaveLength(0);

    await alerts(a, { lowBalanceThresholdUsdc: '4.5' }); // another threshold value: its own cooldown
    await fund(a, '1'); // 5
    await execute(a, 'echo'); // 4 < 4.5
    expect(await subjects(a.email)).toEqual(['Low balance: 4.000000 USDC left']);

    await alerts(a, { lowBalanceThresholdUsdc: '5' });
    await fund(a, '2'); // 6
    await execute(a, 'echo'); // 5
    clock.advance(HOUR + 1000); // more than 24 h after the first 5-USDC alert
    await execute(a, 'echo'); // 4
    expect(await subjects(a.email)).toEqual(['Low balance: 4.000000 USDC left']);
  });
});

describe('credits depleted', () => {
  it('is always mailed when the balance reaches zero, instead of the low-balance mail', async () => {
    const a = await account();
    await fund(a, '2');
    const allOff = ['lowBalance', 'dailyLimitReached', 'creditsRefunded', 'unusualActivity'];
    await alerts(a, { emailNotifications: Object.fromEntries(allOff.map((k) => [k, false])) });
    expect((await execute(a, 'echo')).statusCode).toBe(200);
    expect((await execute(a, 'echo')).statusCode).toBe(200);
    expect((await execute(a, 'echo')).json().error.code).toBe('SVC-PAY-001');
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expectWellFormed(mail, a.email);
    expect(mail?.subject).toBe('Your credits are used up: paid calls are failing');
    expect(mail?.text).toContain('HTTP 402 (SVC-PAY-001)');
    expect(mail?.text).toContain(`Top up (POST): ${PUBLIC_URL}/v1/billing/checkout`);

    // With low balance on, reaching zero still sends only the depleted mail.
    const b = await account();
    await fund(b, '2');
    await alerts(b, { lowBalanceThresholdUsdc: '1.5', emailNotifications: { lowBalance: true } });
    await execute(b, 'echo'); // 1 < 1.5: low balance
    await execute(b, 'echo'); // 0: depleted
    expect(await subjects(b.email)).toEqual([
      'Low balance: 1.000000 USDC left',
      'Your credits are used up: paid calls are failing',
    ]);
  });
});

describe('daily limit reached', () => {
  it('is on when a limit is set, once per account per UTC day, and can be switched off', async () => {
    const a = await account();
    await fund(a, '20');
    expect((await as(a, 'PUT', '/v1/billing/limits', { dailySpendLimitUsdc: '2' })).statusCode).toBe(200);
    expect((await execute(a, 'echo')).statusCode).toBe(200);
    expect((await execute(a, 'echo')).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await execute(a, 'echo')).json().code).toBe('SVC-CREDIT-002');
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expectWellFormed(mail, a.email);
    expect(mail?.subject).toBe('Daily spend limit reached (2.000000 USDC)');
    expect(fact(mail, 'Spent today (UTC)')).toBe('2000000 credits (2.000000 USDC)');
    expect(fact(mail, 'Day (UTC)')).toBe(clock.now().toISOString().slice(0, 10));
    expect(mail?.text).toContain(`Change your limits (PUT): ${PUBLIC_URL}/v1/billing/limits`);

    clock.advance(24 * HOUR); // a new UTC day: the limit resets and can be reached again
    for (let i = 0; i < 3; i++) await execute(a, 'echo');
    expect(await deliveredTo(a.email)).toHaveLength(1);

    await alerts(a, { emailNotifications: { dailyLimitReached: false } });
    clock.advance(24 * HOUR);
    for (let i = 0; i < 3; i++) await execute(a, 'echo');
    expect(await deliveredTo(a.email)).toHaveLength(0);
  });
});

describe('auto-refund', () => {
  it('is off by default and, when on, names the credits, capability and reason', async () => {
    const a = await account();
    await fund(a, '5');
    expect((await execute(a, 'fail')).json().error.code).toBe('SVC-EXE-004');
    expect(await deliveredTo(a.email)).toHaveLength(0);

    await alerts(a, { emailNotifications: { creditsRefunded: true } });
    const res = await execute(a, 'fail');
    expect(res.json().error.code).toBe('SVC-EXE-004');
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expectWellFormed(mail, a.email);
    expect(mail?.subject).toBe(`Refund: 0.500000 USDC for a failed call to ${providerId}/fail`);
    expect(fact(mail, 'Credits refunded')).toBe('500000 credits (0.500000 USDC)');
    expect(fact(mail, 'Capability')).toBe(`${providerId}/fail`);
    expect(fact(mail, 'Reason')).toBe('the provider answered with a server error (HTTP 5xx)');
    expect(fact(mail, 'Call')).toMatch(/^call_/);
  });
});

describe('account suspended', () => {
  it('is always mailed with the reason when an administrator suspends the account', async () => {
    const a = await account();
    const res = await t.admin('POST', `/v1/admin/accounts/${a.accountId}/suspend`, {
      reason: 'chargeback <fraud> review',
    });
    expect(res.statusCode).toBe(200);
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expectWellFormed(mail, a.email);
    expect(mail?.subject).toBe('Your account has been suspended');
    expect(mail?.text).toContain('HTTP 403 (SVC-AUTH-004)');
    expect(fact(mail, 'Reason')).toBe('chargeback <fraud> review');
    expect(mail?.html).toContain('chargeback &lt;fraud&gt; review'); // escaped in HTML
    expect(mail?.raw).not.toContain(a.apiKey);

    // Suspending an account that is already suspended changes nothing and mails nothing.
    expect((await t.admin('POST', `/v1/admin/accounts/${a.accountId}/suspend`, {})).statusCode).toBe(200);
    expect(await deliveredTo(a.email)).toHaveLength(0);
  });
});

describe('recipients', () => {
  it('sends nothing to a wallet-only account', async () => {
    // Fixture: a wallet sign-in account (no e-mail), with every switch on; the triggers run in a real
    // transaction as the suspend and execute paths run them.
    const id = 'acc_walletonly0000000000000001';
    await t.deps.db.orm.execute(
      sql`INSERT INTO accounts (id, wallet_address, email_prefs)
          VALUES (${id}, '0xabc0000000000000000000000000000000000001',
                  '{"lowBalance": true, "creditsRefunded": true, "dailySummary": true}'::jsonb)`,
    );
    await t.deps.db.orm.transaction(async (tx) => {
      await onAccountSuspended(tx, t.deps, { accountId: id, reason: null });
      await onDailyLimitReached(tx, t.deps, {
        accountId: id,
        limitCredits: 1n,
        spentCredits: 1n,
        day: '2026-11-22',
      });
    });
    const row = await one<{ n: number }>(
      t.deps.db.orm,
      sql`SELECT count(*)::int AS n FROM email_outbox WHERE account_id = ${id}`,
    );
    expect(row?.n).toBe(0);
  });

  it('delivers the login code queued by POST /v1/auth/login', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'Login.Me@Example.com' },
    });
    expect(res.statusCode).toBe(202);
    const [mail, ...more] = await deliveredTo('login.me@example.com');
    expect(more).toHaveLength(0);
    expect(mail?.headers.from).toBe(FROM);
    expect(mail?.headers['x-svc-notification']).toBe('login_code');
    expect(mail?.subject).toMatch(/^Your Svc sign-in code: \d{6}$/);
    expect(mail?.html.length).toBeGreaterThan(0);
    // The code was for the recipient only: the delivered outbox row no longer holds it.
    const code = /(\d{6})$/.exec(mail?.subject ?? '')?.[1] as string;
    const row = await one<{ status: string; text_body: string; html_body: string }>(
      t.deps.db.orm,
      sql`SELECT status, text_body, html_body FROM email_outbox WHERE to_address = 'login.me@example.com'`,
    );
    expect(row?.status).toBe('sent');
    expect(`${row?.text_body}${row?.html_body}`).not.toContain(code);
  });
});
