// The per-event notifications over real SMTP: recipients, subjects and content, preference switches,
// defaults, cooldowns (service clock) and wallet-only accounts.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { deliverDueEmails } from '../../src/modules/notifications/delivery.js';
import { enqueueEmail } from '../../src/modules/notifications/outbox.js';
import {
  onAccountSuspended,
  onDailyLimitReached,
  onPaymentCompleted,
} from '../../src/modules/notifications/triggers.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { credit, debit, paidCall, setPrefs, setThreshold } from './fixtures.js';
import { type ReceivedMail, TestSmtpServer } from './smtp.js';

const PUBLIC_URL = 'https://svc.example.test';
const FROM = 'Svc Alerts <alerts@svc.example.test>';
const HOUR = 60 * 60_000;

let t: TestApp;
let smtp: TestSmtpServer;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  t = await createTestApp({
    clock,
    env: { SMTP_URL: smtp.url, SVC_PUBLIC_URL: PUBLIC_URL, MAIL_FROM: FROM },
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});
beforeEach(() => {
  clock.set(new Date());
});

/** Runs the delivery job and returns what the account's address received in this run. */
async function deliveredTo(email: string): Promise<ReceivedMail[]> {
  const before = smtp.to(email).length;
  await deliverDueEmails(t.deps);
  return smtp.to(email).slice(before);
}

async function account() {
  const a = await t.createAccount();
  const row = await t.deps.db.orm.execute(sql`SELECT email FROM accounts WHERE id = ${a.accountId}`);
  const email = (row as unknown as { rows: { email: string }[] }).rows[0]?.email as string;
  return { ...a, email };
}

function expectWellFormed(mail: ReceivedMail) {
  expect(mail.headers.from).toBe('Svc Alerts <alerts@svc.example.test>');
  expect(mail.envelopeFrom).toBe('alerts@svc.example.test');
  expect(mail.text.length).toBeGreaterThan(0);
  expect(mail.html).toMatch(/^<!doctype html>/);
  // Every link points at the public URL.
  for (const href of mail.html.matchAll(/href="([^"]+)"/g)) {
    expect(href[1]).toMatch(/^https:\/\/svc\.example\.test(\/|$)/);
  }
}

/** The value of a "Label: value" line of the text part. */
function fact(mail: ReceivedMail | undefined, label: string): string | undefined {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\s*${escaped}:\\s+(.*)$`, 'm').exec(mail?.text ?? '')?.[1];
}

describe('payment confirmed', () => {
  it('is mailed with amount, credits, receipt link and new balance, even when switched off, once per payment', async () => {
    const a = await account();
    await setPrefs(t, a.accountId, { paymentConfirmed: false });
    await credit(t, a.accountId, 123_400_000n);
    const event = {
      accountId: a.accountId,
      paymentId: 'pay_test_1',
      amountUsdCents: 12340,
      credits: 123_400_000n,
      newBalance: 123_400_000n,
      receiptUrl: `${PUBLIC_URL}/v1/billing/payments/pay_test_1/receipt`,
    };
    await t.deps.db.orm.transaction((tx) => onPaymentCompleted(tx, t.deps, event));
    await t.deps.db.orm.transaction((tx) => onPaymentCompleted(tx, t.deps, event)); // webhook replay
    const mails = await deliveredTo(a.email);
    expect(mails).toHaveLength(1);
    const [mail] = mails as [ReceivedMail];
    expectWellFormed(mail);
    expect(mail.envelopeTo).toEqual([a.email]);
    expect(mail.subject).toBe('Payment confirmed: 123.40 USD added to your balance');
    expect(fact(mail, 'Amount paid')).toBe('123.40 USD');
    expect(fact(mail, 'Credits added')).toBe('123400000 credits (123.400000 USDC)');
    expect(fact(mail, 'New balance')).toBe('123400000 credits (123.400000 USDC)');
    expect(mail.text).toContain(`Receipt: ${PUBLIC_URL}/v1/billing/payments/pay_test_1/receipt`);
    expect(mail.html).toContain(`<a href="${PUBLIC_URL}/v1/billing/payments/pay_test_1/receipt">Receipt</a>`);
    expect(mail.text).toContain('cannot be switched off');
  });
});

describe('low balance', () => {
  it('is off by default', async () => {
    const a = await account();
    await setThreshold(t, a.accountId, 5_000_000n);
    await credit(t, a.accountId, 6_000_000n);
    await debit(t, a.accountId, 2_000_000n);
    expect(await deliveredTo(a.email)).toHaveLength(0);
  });

  it('is mailed when the balance drops below the threshold, at most once per 24 h per threshold', async () => {
    const a = await account();
    await setPrefs(t, a.accountId, { lowBalance: true });
    await setThreshold(t, a.accountId, 5_000_000n);
    await credit(t, a.accountId, 6_000_000n);
    await debit(t, a.accountId, 500_000n); // 5.5 USDC: still above
    expect(await deliveredTo(a.email)).toHaveLength(0);

    await debit(t, a.accountId, 1_000_000n); // 4.5 USDC: crossed
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expectWellFormed(mail as ReceivedMail);
    expect(mail?.subject).toBe('Low balance: 4.500000 USDC left');
    expect(mail?.text).toContain('below your alert threshold of 5.000000 USDC');
    expect(mail?.text).toContain('"lowBalance": false');

    await debit(t, a.accountId, 100_000n); // below, not a new crossing
    await credit(t, a.accountId, 2_000_000n);
    clock.advance(23 * HOUR);
    await debit(t, a.accountId, 2_000_000n); // crosses again within 24 h: cooldown
    expect(await deliveredTo(a.email)).toHaveLength(0);

    await setThreshold(t, a.accountId, 10_000_000n); // a new threshold value has its own cooldown
    await credit(t, a.accountId, 7_000_000n); // 11.4
    await debit(t, a.accountId, 2_000_000n); // 9.4 < 10
    expect((await deliveredTo(a.email)).map((m) => m.subject)).toEqual(['Low balance: 9.400000 USDC left']);

    await setThreshold(t, a.accountId, 5_000_000n);
    await debit(t, a.accountId, 4_900_000n); // 4.5 < 5, 24 h after the first 5-USDC alert? not yet
    expect(await deliveredTo(a.email)).toHaveLength(0);
    await credit(t, a.accountId, 1_000_000n);
    clock.advance(1 * HOUR + 1000); // now > 24 h after the first alert
    await debit(t, a.accountId, 1_000_000n);
    expect((await deliveredTo(a.email)).map((m) => m.subject)).toEqual(['Low balance: 4.500000 USDC left']);
  });
});

describe('credits depleted', () => {
  it('is always mailed when the balance reaches zero, instead of the low-balance mail', async () => {
    const a = await account();
    await setPrefs(t, a.accountId, {
      lowBalance: true,
      dailyLimitReached: false,
      creditsRefunded: false,
      unusualActivity: false,
    });
    await setThreshold(t, a.accountId, 1_000_000n);
    await credit(t, a.accountId, 2_000n);
    await paidCall(t, a.accountId, { price: 1_000n });
    await paidCall(t, a.accountId, { price: 1_000n });
    const mails = await deliveredTo(a.email);
    expect(mails.map((m) => m.subject)).toEqual(['Your credits are used up: paid calls are failing']);
    expectWellFormed(mails[0] as ReceivedMail);
    expect(mails[0]?.text).toContain('HTTP 402 (SVC-PAY-001)');
    expect(mails[0]?.text).toContain('Top up (POST): https://svc.example.test/v1/billing/checkout');
  });
});

describe('daily limit reached', () => {
  const refuse = (accountId: string, day: string) =>
    t.deps.db.orm.transaction((tx) =>
      onDailyLimitReached(tx, t.deps, { accountId, limitCredits: 5_000_000n, spentCredits: 4_990_000n, day }),
    );

  it('is on when a limit is set, once per account per UTC day, and can be switched off', async () => {
    const a = await account();
    await refuse(a.accountId, '2026-11-22');
    await refuse(a.accountId, '2026-11-22');
    const mails = await deliveredTo(a.email);
    expect(mails).toHaveLength(1);
    expectWellFormed(mails[0] as ReceivedMail);
    expect(mails[0]?.subject).toBe('Daily spend limit reached (5.000000 USDC)');
    expect(fact(mails[0], 'Spent today (UTC)')).toBe('4990000 credits (4.990000 USDC)');
    expect(mails[0]?.text).toContain('Change your limits (PUT): https://svc.example.test/v1/billing/limits');

    await refuse(a.accountId, '2026-11-23');
    expect(await deliveredTo(a.email)).toHaveLength(1);

    const b = await account();
    await setPrefs(t, b.accountId, { dailyLimitReached: false });
    await refuse(b.accountId, '2026-11-22');
    expect(await deliveredTo(b.email)).toHaveLength(0);
  });
});

describe('auto-refund', () => {
  it('is off by default and, when on, names the credits, capability and reason', async () => {
    const a = await account();
    await credit(t, a.accountId, 10_000_000n);
    await paidCall(t, a.accountId, {
      providerId: 'weather-co',
      slug: 'forecast',
      price: 2_500n,
      refunded: true,
    });
    expect(await deliveredTo(a.email)).toHaveLength(0);

    await setPrefs(t, a.accountId, { creditsRefunded: true });
    const callId = await paidCall(t, a.accountId, {
      providerId: 'weather-co',
      slug: 'forecast',
      price: 2_500n,
      refunded: true,
    });
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expectWellFormed(mail as ReceivedMail);
    expect(mail?.subject).toBe('Refund: 0.002500 USDC for a failed call to weather-co/forecast');
    expect(fact(mail, 'Credits refunded')).toBe('2500 credits (0.002500 USDC)');
    expect(fact(mail, 'Reason')).toBe('provider returned HTTP 503');
    expect(fact(mail, 'Call')).toBe(callId);
    expect(mail?.html).toContain('<td>weather-co/forecast</td>');
  });
});

describe('account suspended', () => {
  it('is always mailed with the reason', async () => {
    const a = await account();
    await setPrefs(
      t,
      a.accountId,
      Object.fromEntries(['lowBalance', 'dailyLimitReached'].map((k) => [k, false])),
    );
    await t.deps.db.orm.transaction((tx) =>
      onAccountSuspended(tx, t.deps, { accountId: a.accountId, reason: 'chargeback <fraud> review' }),
    );
    const [mail] = await deliveredTo(a.email);
    expectWellFormed(mail as ReceivedMail);
    expect(mail?.subject).toBe('Your account has been suspended');
    expect(mail?.text).toContain('HTTP 403 (SVC-AUTH-004)');
    expect(fact(mail, 'Reason')).toBe('chargeback <fraud> review');
    expect(mail?.html).toContain('chargeback &lt;fraud&gt; review'); // escaped in HTML
    expect(mail?.raw).not.toContain(a.apiKey);
  });
});

describe('recipients', () => {
  it('sends nothing to a wallet-only account', async () => {
    const id = 'acc_walletonly0000000000000001';
    await t.deps.db.orm.execute(
      sql`INSERT INTO accounts (id, wallet_address, balance_credits) VALUES (${id}, '0xabc0000000000000000000000000000000000001', 0)`,
    );
    await setPrefs(t, id, { lowBalance: true, creditsRefunded: true });
    await t.deps.db.orm.transaction(async (tx) => {
      await onAccountSuspended(tx, t.deps, { accountId: id, reason: null });
      await onDailyLimitReached(tx, t.deps, {
        accountId: id,
        limitCredits: 1n,
        spentCredits: 1n,
        day: '2026-11-22',
      });
    });
    const queued = await t.deps.db.orm.execute(
      sql`SELECT count(*)::int AS n FROM email_outbox WHERE account_id = ${id}`,
    );
    expect((queued as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });

  it('delivers a mail queued without a service time (login code) whatever the service clock says', async () => {
    clock.set(new Date('2020-01-01T00:00:00Z'));
    await enqueueEmail(t.deps.db.orm, {
      kind: 'login_code',
      to: 'login@example.com',
      subject: 'Your login code',
      text: 'Your code: 123456',
      html: '<p>Your code: 123456</p>',
      dedupeKey: 'login_code:test:1',
    });
    const [mail] = await deliveredTo('login@example.com');
    expect(mail?.subject).toBe('Your login code');
    expect(mail?.headers['x-svc-notification']).toBe('login_code');
  });
});
