// The periodic notification jobs: unusual activity (from the call log) and the daily/weekly digests
// (figures checked against the ledger), with their preference switches, floor, cooldown and periods.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { creditsToUsdc } from '../../src/lib/money.js';
import { deliverDueEmails } from '../../src/modules/notifications/delivery.js';
import { queueDigests } from '../../src/modules/notifications/digests.js';
import { detectUnusualActivity } from '../../src/modules/notifications/unusual-activity.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { credit, paidCall, setPrefs } from './fixtures.js';
import { type ReceivedMail, TestSmtpServer } from './smtp.js';

const PUBLIC_URL = 'https://svc.example.test';
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let t: TestApp;
let smtp: TestSmtpServer;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  t = await createTestApp({ clock, env: { SMTP_URL: smtp.url, SVC_PUBLIC_URL: PUBLIC_URL } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});
beforeEach(() => clock.set(new Date()));

async function deliveredTo(email: string): Promise<ReceivedMail[]> {
  const before = smtp.to(email).length;
  await deliverDueEmails(t.deps);
  return smtp.to(email).slice(before);
}

async function account(email?: string) {
  const a = await t.createAccount(email);
  const row = await one<{ email: string }>(
    t.deps.db.orm,
    sql`SELECT email FROM accounts WHERE id = ${a.accountId}`,
  );
  return { ...a, email: row?.email as string };
}

/** `count` call-log rows for the key, evenly spread over [from, to) (what execution records per call). */
async function callsBetween(accountId: string, keyId: string, count: number, from: Date, to: Date) {
  const step = Math.floor((to.getTime() - from.getTime()) / count);
  await t.deps.db.orm.execute(
    sql`INSERT INTO calls (id, account_id, api_key_id, provider_id, endpoint_slug, price_credits, status,
                           deadline_at, created_at)
        SELECT 'call_fx_' || ${keyId} || '_' || ${from.getTime()} || '_' || g, ${accountId}, ${keyId}, 'acme',
               'search', 1000, 'success', ts, ts
        FROM generate_series(0, ${count - 1}) g,
             LATERAL (SELECT ${from.toISOString()}::timestamptz + (g * ${step}) * interval '1 millisecond' AS ts) x`,
  );
}

describe('unusual activity', () => {
  it('is off by default', async () => {
    const a = await account();
    const now = clock.now();
    await callsBetween(a.accountId, a.keyId, 200, new Date(now.getTime() - 30 * MIN), now);
    expect(await detectUnusualActivity(t.deps)).toBe(0);
    expect(await deliveredTo(a.email)).toHaveLength(0);
  });

  it('never alerts below the floor of 30 calls in the hour, even for a key with no history', async () => {
    const a = await account();
    await setPrefs(t, a.accountId, { unusualActivity: true });
    const now = clock.now();
    await callsBetween(a.accountId, a.keyId, 29, new Date(now.getTime() - 50 * MIN), now);
    expect(await detectUnusualActivity(t.deps)).toBe(0);
    await callsBetween(a.accountId, a.keyId, 1, new Date(now.getTime() - 1000), now);
    expect(await detectUnusualActivity(t.deps)).toBe(1);
  });

  it('alerts above 3x the 7-day hourly average with spike details and links, at most once per 4 h per key', async () => {
    const a = await account();
    await setPrefs(t, a.accountId, { unusualActivity: true });
    const now = clock.now();
    const windowStart = new Date(now.getTime() - HOUR);
    // Steady 20 calls an hour for the 7 days before the window.
    await callsBetween(
      a.accountId,
      a.keyId,
      7 * 24 * 20,
      new Date(windowStart.getTime() - 7 * DAY),
      windowStart,
    );
    await callsBetween(a.accountId, a.keyId, 60, windowStart, now); // exactly 3x: not above
    expect(await detectUnusualActivity(t.deps)).toBe(0);
    await callsBetween(a.accountId, a.keyId, 1, new Date(now.getTime() - 1000), now); // 61 > 60
    expect(await detectUnusualActivity(t.deps)).toBe(1);

    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    expect(mail?.subject).toBe('Unusual activity on API key "default"');
    expect(mail?.text).toContain(
      `API key "default" (${a.apiKey.slice(0, 11)}...) made 61 paid calls in the last 60 minutes`,
    );
    expect(mail?.text).toMatch(/Average per 60 min \(7 days\):\s+20\.0/);
    expect(mail?.text).toMatch(/Ratio:\s+3\.0x/);
    expect(mail?.text).toMatch(/Spent in the window:\s+61000 credits \(0\.061000 USDC\)/);
    expect(mail?.text).toContain('acme/search, Calls: 61');
    expect(mail?.text).toContain(`Review your API keys: ${PUBLIC_URL}/v1/keys`);
    expect(mail?.text).toContain(`Set spend limits (PUT): ${PUBLIC_URL}/v1/billing/limits`);
    expect(mail?.html).toContain(`<a href="${PUBLIC_URL}/v1/keys">`);
    expect(mail?.raw).not.toContain(a.apiKey); // the prefix only, never the key

    // Still spiking 3 h 59 min later: cooldown. After 4 h: alerted again.
    clock.advance(4 * HOUR - MIN);
    const later = clock.now();
    await callsBetween(a.accountId, a.keyId, 200, new Date(later.getTime() - 30 * MIN), later);
    expect(await detectUnusualActivity(t.deps)).toBe(0);
    clock.advance(MIN);
    expect(await detectUnusualActivity(t.deps)).toBe(1);
    expect(await detectUnusualActivity(t.deps)).toBe(0);
    expect(await deliveredTo(a.email)).toHaveLength(1);
  });
});

describe('digests', () => {
  const nextUtcMidnight = (d: Date) =>
    new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1));
  const nextMonday = (d: Date) => {
    const m = nextUtcMidnight(d);
    return new Date(m.getTime() + ((8 - m.getUTCDay()) % 7) * DAY);
  };

  beforeAll(async () => {
    await t.deps.db.orm.execute(
      sql`INSERT INTO providers (id, name, category, base_url, secret_ciphertext) VALUES
          ('acme', 'Acme Search', 'search', 'http://127.0.0.1:1', 'x'),
          ('weather-co', 'Weather Co', 'weather', 'http://127.0.0.1:1', 'x')
          ON CONFLICT (id) DO NOTHING`,
    );
  });

  /** Today's spend of the account per the ledger, net of refunds (what the digest must report). */
  async function ledgerSpentToday(accountId: string): Promise<bigint> {
    const start = new Date(nextUtcMidnight(clock.now()).getTime() - DAY).toISOString();
    const row = await one<{ spent: bigint }>(
      t.deps.db.orm,
      sql`SELECT coalesce(sum(-amount_credits), 0)::bigint AS spent FROM ledger_entries
          WHERE account_id = ${accountId} AND type IN ('debit', 'refund') AND created_at >= ${start}::timestamptz`,
    );
    return row?.spent ?? 0n;
  }

  async function activity(accountId: string) {
    await credit(t, accountId, 100_000_000n);
    for (let i = 0; i < 3; i++) await paidCall(t, accountId, { providerId: 'acme', price: 2_000n });
    await paidCall(t, accountId, { providerId: 'acme', price: 2_000n, refunded: true });
    await paidCall(t, accountId, { providerId: 'weather-co', slug: 'forecast', price: 5_000n });
    await paidCall(t, accountId, { providerId: 'weather-co', slug: 'forecast', price: 5_000n });
  }

  it('sends the daily summary of the UTC day that ended, with figures matching the ledger, once', async () => {
    const on = await account();
    const off = await account();
    const quiet = await account();
    await setPrefs(t, on.accountId, { dailySummary: true });
    await setPrefs(t, quiet.accountId, { dailySummary: true });
    await activity(on.accountId);
    await activity(off.accountId);
    const spent = await ledgerSpentToday(on.accountId);
    expect(spent).toBe(16_000n); // 3 x 2000 + 2 x 5000; the refunded call nets to zero
    const today = clock.now().toISOString().slice(0, 10);

    // Still the same day: nothing to send yet.
    await queueDigests(t.deps);
    expect(await deliveredTo(on.email)).toHaveLength(0);

    clock.set(new Date(nextUtcMidnight(clock.now()).getTime() + 30 * MIN));
    const counts = await Promise.all([queueDigests(t.deps), queueDigests(t.deps)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    await queueDigests(t.deps);
    const [mail, ...more] = await deliveredTo(on.email);
    expect(more).toHaveLength(0);
    expect(mail?.subject).toBe(`Daily summary for ${today}: ${creditsToUsdc(spent)} USDC spent in 6 calls`);
    expect(mail?.text).toMatch(new RegExp(`Total spent:\\s+${spent} credits \\(0\\.016000 USDC\\)`));
    expect(mail?.text).toMatch(/Calls:\s+6/);
    expect(mail?.text).toMatch(/Refunded calls:\s+1/);
    expect(mail?.text).toMatch(/Refund rate:\s+16\.7%/);
    // Top providers by spend: Weather Co (10000) before Acme (6000).
    expect(mail?.text).toContain(
      'Top providers by spend:\n  - Weather Co (weather-co), Spent: 0.010000 USDC, Calls: 2\n  - Acme Search (acme), Spent: 0.006000 USDC, Calls: 4',
    );
    expect(mail?.text).toContain(`Usage report: ${PUBLIC_URL}/v1/billing/usage?from=${today}&to=${today}`);
    expect(mail?.html).toContain('<td>Weather Co (weather-co)</td>');
    expect(await deliveredTo(off.email)).toHaveLength(0);
    expect(await deliveredTo(quiet.email)).toHaveLength(0); // nothing happened: no digest
  });

  it('sends the weekly summary of the ISO week that ended, once', async () => {
    const a = await account();
    await setPrefs(t, a.accountId, { weeklySummary: true, dailySummary: false });
    await activity(a.accountId);
    const spent = await ledgerSpentToday(a.accountId);
    const monday = nextMonday(clock.now());
    clock.set(new Date(monday.getTime() + HOUR));
    expect(await queueDigests(t.deps)).toBe(1);
    expect(await queueDigests(t.deps)).toBe(0);
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    const weekStart = new Date(monday.getTime() - 7 * DAY).toISOString().slice(0, 10);
    const weekEnd = new Date(monday.getTime() - DAY).toISOString().slice(0, 10);
    expect(mail?.subject).toMatch(/^Weekly summary for week \d{4}-W\d{2}: 0\.016000 USDC spent in 6 calls$/);
    expect(mail?.text).toContain(`(UTC, ${weekStart} to ${weekEnd})`);
    expect(mail?.text).toMatch(new RegExp(`Total spent:\\s+${spent} credits`));
    expect(mail?.text).toMatch(/Refund rate:\s+16\.7%/);
    expect(mail?.text).toContain('"weeklySummary": false');
  });
});
