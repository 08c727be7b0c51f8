// The periodic notification jobs: unusual activity (from the call log) and the daily/weekly digests
// (figures checked against the ledger), with their preference switches, floor, cooldown and periods.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { creditsToUsdc } from '../../src/lib/money.js';
import { queueDigests } from '../../src/modules/notifications/digests.js';
import { detectUnusualActivity } from '../../src/modules/notifications/unusual-activity.js';
import type { TestApp } from '../helpers/app.js';
import { type Account, createNotifyEnv, fact, type NotifyEnv, PROVIDER_ID, PUBLIC_URL } from './setup.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const SECOND_PROVIDER = 'notify-second-provider';

const clock = new ManualClock(new Date());
let env: NotifyEnv;
let t: TestApp;
let account: NotifyEnv['account'];
let deliveredTo: NotifyEnv['deliveredTo'];

beforeAll(async () => {
  env = await createNotifyEnv(clock);
  ({ t, account, deliveredTo } = env);
});
afterAll(async () => {
  await env?.close();
});
beforeEach(() => clock.set(new Date()));

/**
 * `count` call-log rows for the key, evenly spread over [from, to), as execution records them. A fixture
 * because a week of back-dated history cannot come from real calls in a test.
 */
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
    await env.fund(a, '100');
    await env.alerts(a, { emailNotifications: { unusualActivity: true } });
    for (let i = 0; i < 29; i++) expect((await env.execute(a, 'echo')).statusCode).toBe(200);
    clock.advance(1000);
    expect(await detectUnusualActivity(t.deps)).toBe(0);
    expect((await env.execute(a, 'echo')).statusCode).toBe(200);
    clock.advance(1000);
    expect(await detectUnusualActivity(t.deps)).toBe(1);
    const [mail] = await deliveredTo(a.email);
    expect(mail?.subject).toBe('Unusual activity on API key "default"');
    expect(fact(mail, 'Ratio')).toBe('no earlier use');
    expect(mail?.text).toContain(`${PROVIDER_ID}/echo, Calls: 30`);
  });

  it('alerts above 3x the 7-day hourly average with spike details and links, at most once per 4 h per key', async () => {
    const a = await account();
    await env.alerts(a, { emailNotifications: { unusualActivity: true } });
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
    expect(fact(mail, 'Average per 60 min (7 days)')).toBe('20.0');
    expect(fact(mail, 'Ratio')).toBe('3.0x');
    expect(fact(mail, 'Spent in the window')).toBe('61000 credits (0.061000 USDC)');
    expect(mail?.text).toContain('acme/search, Calls: 61');
    expect(mail?.text).toContain(`Review your API keys: ${PUBLIC_URL}/v1/keys`);
    expect(mail?.text).toContain(`Set spend limits (PUT): ${PUBLIC_URL}/v1/billing/limits`);
    expect(mail?.html).toContain(`<a href="${PUBLIC_URL}/v1/keys">`);
    expect(mail?.raw).not.toContain(a.apiKey); // the public prefix only, never the key

    // Still spiking 3 h 59 min later: cooldown. After 4 h: alerted again, once.
    clock.advance(4 * HOUR - MIN);
    const later = clock.now();
    await callsBetween(a.accountId, a.keyId, 200, new Date(later.getTime() - 30 * MIN), later);
    expect(await detectUnusualActivity(t.deps)).toBe(0);
    clock.advance(MIN);
    const runs = await Promise.all([detectUnusualActivity(t.deps), detectUnusualActivity(t.deps)]);
    expect(runs[0] + runs[1]).toBe(1);
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
    const res = await t.admin('POST', '/v1/admin/providers', {
      provider_id: SECOND_PROVIDER,
      name: 'Second Provider',
      description: 'Another local provider',
      category: 'utility',
      base_url: env.providerUrl,
      endpoints: [
        {
          slug: 'echo',
          method: 'POST',
          path: '/echo',
          description: 'echo',
          parameters: {},
          pricing: { model: 'per_call', price_per_call_usdc: '2' },
        },
      ],
    });
    expect(res.statusCode).toBe(201);
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

  /** 3 successful 1-USDC calls and 1 refunded call to the test provider, 2 calls of 2 USDC to the second. */
  async function activity(a: Account) {
    await env.fund(a, '100');
    for (let i = 0; i < 3; i++) expect((await env.execute(a, 'echo')).statusCode).toBe(200);
    expect((await env.execute(a, 'fail')).statusCode).toBe(502);
    for (let i = 0; i < 2; i++) {
      expect((await env.as(a, 'POST', `/v1/execute/${SECOND_PROVIDER}/echo`, {})).statusCode).toBe(200);
    }
  }

  it('sends the daily summary of the UTC day that ended, with figures matching the ledger, once', async () => {
    const on = await account();
    const off = await account();
    const quiet = await account();
    await env.alerts(on, { emailNotifications: { dailySummary: true } });
    await env.alerts(quiet, { emailNotifications: { dailySummary: true } });
    await activity(on);
    await activity(off);
    const spent = await ledgerSpentToday(on.accountId);
    expect(spent).toBe(7_000_000n); // 3 x 1 + 2 x 2 USDC; the refunded call nets to zero
    const today = clock.now().toISOString().slice(0, 10);

    // Still the same day: nothing to send yet.
    await queueDigests(t.deps);
    expect(await deliveredTo(on.email)).toHaveLength(0);

    clock.set(new Date(nextUtcMidnight(clock.now()).getTime() + 30 * MIN));
    const counts = await Promise.all([queueDigests(t.deps), queueDigests(t.deps)]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(1);
    expect(await queueDigests(t.deps)).toBe(0);
    const [mail, ...more] = await deliveredTo(on.email);
    expect(more).toHaveLength(0);
    expect(mail?.subject).toBe(`Daily summary for ${today}: ${creditsToUsdc(spent)} USDC spent in 6 calls`);
    expect(fact(mail, 'Total spent')).toBe(`${spent} credits (7.000000 USDC)`);
    expect(fact(mail, 'Calls')).toBe('6');
    expect(fact(mail, 'Refunded calls')).toBe('1');
    expect(fact(mail, 'Refund rate')).toBe('16.7%');
    // Top providers by spend: the second provider (4 USDC) before the test provider (3 USDC).
    expect(mail?.text).toContain(
      [
        'Top providers by spend:',
        `  - Second Provider (${SECOND_PROVIDER}), Spent: 4.000000 USDC, Calls: 2`,
        `  - Notify Test Provider (${PROVIDER_ID}), Spent: 3.000000 USDC, Calls: 4`,
      ].join('\n'),
    );
    expect(mail?.text).toContain(`Usage report: ${PUBLIC_URL}/v1/billing/usage?from=${today}&to=${today}`);
    expect(mail?.html).toContain(`<td>Second Provider (${SECOND_PROVIDER})</td>`);
    expect(await deliveredTo(off.email)).toHaveLength(0); // off by default
    expect(await deliveredTo(quiet.email)).toHaveLength(0); // nothing happened: no digest
  });

  it('sends the weekly summary of the ISO week that ended, once', async () => {
    const a = await account();
    await env.alerts(a, { emailNotifications: { weeklySummary: true } });
    await activity(a);
    const spent = await ledgerSpentToday(a.accountId);
    const monday = nextMonday(clock.now());
    clock.set(new Date(monday.getTime() + HOUR));
    expect(await queueDigests(t.deps)).toBe(1);
    expect(await queueDigests(t.deps)).toBe(0);
    const [mail, ...more] = await deliveredTo(a.email);
    expect(more).toHaveLength(0);
    const weekStart = new Date(monday.getTime() - 7 * DAY).toISOString().slice(0, 10);
    const weekEnd = new Date(monday.getTime() - DAY).toISOString().slice(0, 10);
    expect(mail?.subject).toMatch(/^Weekly summary for week \d{4}-W\d{2}: 7\.000000 USDC spent in 6 calls$/);
    expect(mail?.text).toContain(`(UTC, ${weekStart} to ${weekEnd})`);
    expect(fact(mail, 'Total spent')).toBe(`${spent} credits (7.000000 USDC)`);
    expect(fact(mail, 'Refund rate')).toBe('16.7%');
    expect(mail?.text).toContain('"weeklySummary": false');
  });
});
