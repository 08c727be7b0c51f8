// Coupons and agent keys in a real browser: a coupon redeemed on the top-up page (and each refusal
// explained), a key created with a spending policy, its policy shown, and its usage after a paid call.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, expectInvariants, outcomesRecorded, registerProvider } from '../execution/fixtures.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  expectAccessible as accessible,
  type Browser,
  launchBrowser,
  newPage,
  openPage,
  type Served,
  serveApp,
  sessionHeaders,
  signInByEmail,
} from './browser.js';

const EMAIL = 'coupons.keys@example.com';
let served: Served;
let browser: Browser;
let page: Page;
let upstream: ProviderServer;
let providerId: string;

beforeAll(async () => {
  served = await serveApp();
  upstream = await startProviderServer();
  ({ providerId } = await registerProvider(served.t, upstream.url, [
    { slug: 'echo', price_usdc: '0.25', parameters: {} },
  ]));
  browser = await launchBrowser();
  page = await newPage(browser);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  await served?.t.close();
});

const open = (hash: string, heading: string) => openPage(page, served, hash, heading);
const expectAccessible = (name: string) => accessible(page, name);

async function coupon(code: string, extra: Record<string, unknown> = {}) {
  const res = await served.t.admin('POST', '/v1/admin/coupons', {
    code,
    credits_usdc: '5',
    description: 'Welcome credit',
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function redeem(code: string) {
  await page.getByLabel('Coupon code').fill(code);
  await page.getByRole('button', { name: 'Redeem coupon' }).click();
}

async function balance(): Promise<string> {
  const res = await fetch(`${served.base}/v1/billing/balance`, { headers: await sessionHeaders(page) });
  return ((await res.json()) as { balanceUsdc: string }).balanceUsdc;
}

describe('coupons and agent keys in Chromium', { timeout: 120_000 }, () => {
  it('redeems a coupon on the top-up page and explains every refusal', async () => {
    await coupon('WELCOME5');
    await coupon('LASTYEAR', { expires_at: '2020-01-01T00:00:00Z' });
    await coupon('ONLYONE', { max_redemptions: 1 });
    const other = await served.t.createAccount('someone.else@example.com');
    const taken = await served.t.inject({
      method: 'POST',
      url: '/v1/billing/coupons/redeem',
      headers: { 'x-svc-api-key': other.apiKey },
      payload: { code: 'ONLYONE' },
    });
    expect(taken.statusCode, taken.body).toBe(200);

    await signInByEmail(page, served, EMAIL);
    await open('topup', 'Top up by card');
    await page.getByTestId('topup-balance').getByText('0.00 USDC').waitFor();
    await redeem('welcome5');
    await page
      .getByText('Coupon WELCOME5 redeemed: +5.00 USDC (Welcome credit). New balance: 5.00 USDC.')
      .waitFor();
    await page.getByTestId('topup-balance').getByText('5.00 USDC').waitFor();
    await expect(page.getByLabel('Coupon code').inputValue()).resolves.toBe('');

    const refusals: [string, string, string][] = [
      ['WELCOME5', 'SVC-COUPON-002', 'This account has already used this coupon; each works once.'],
      ['NO-SUCH-CODE', 'SVC-COUPON-001', 'No coupon has this code: check it and try again.'],
      ['LASTYEAR', 'SVC-COUPON-003', 'This coupon is past its expiry date.'],
      ['ONLYONE', 'SVC-COUPON-003', 'Every redemption of this coupon has been used.'],
    ];
    for (const [code, errorCode, advice] of refusals) {
      await redeem(code);
      const alert = page.getByRole('alert');
      await alert.getByText(advice).waitFor();
      await expect(alert.textContent()).resolves.toMatch(new RegExp(`Code ${errorCode} · request id \\S+`));
    }
    // Credited once, whatever was tried afterwards.
    expect(await balance()).toBe('5.000000');
    await page.getByTestId('topup-balance').getByText('5.00 USDC').waitFor();
    await expectAccessible('top-up-coupon');
  });

  it('creates an agent key with a spending policy and shows the policy and live usage', async () => {
    await open('keys', 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('research agent');
    await page.getByLabel('Daily limit (USDC)').fill('1');
    await page.getByLabel('Total limit (USDC)').fill('2');
    await page.getByLabel('Per-call maximum (USDC)').fill('0.5');
    await page.getByLabel('Allowed providers').fill(`${providerId}, `);
    await page.getByLabel('Allowed categories').fill('utility');
    await page.getByLabel('Expires').fill('2031-06-30T12:00');
    await page.getByRole('button', { name: 'Create key' }).click();
    const agentKey = await page.getByTestId('new-key').inputValue();
    expect(agentKey).toMatch(/^svc_sk_/);
    const expiresAt = await page.evaluate(() => new Date('2031-06-30T12:00').toISOString());

    // What the API stored is what the form said.
    const listed = await fetch(`${served.base}/v1/keys`, { headers: await sessionHeaders(page) });
    const keys = ((await listed.json()) as { data: { name: string; policy: Record<string, unknown> }[] })
      .data;
    expect(keys.find((k) => k.name === 'research agent')?.policy).toEqual({
      daily_limit_usdc: '1.000000',
      total_limit_usdc: '2.000000',
      per_call_max_usdc: '0.500000',
      allowed_providers: [providerId],
      allowed_categories: ['utility'],
      expires_at: expiresAt,
    });

    const row = page.getByRole('row').filter({ hasText: 'research agent' });
    for (const text of [
      'Daily limit 1.00 USDC',
      'Total limit 2.00 USDC',
      'At most 0.50 USDC a call',
      `Providers: ${providerId}`,
      'Categories: utility',
      'Today 0.00 USDC of 1.00 USDC',
      'Total 0.00 USDC of 2.00 USDC',
    ]) {
      await row.getByText(text, { exact: true }).waitFor();
    }

    // A paid call through the agent key shows up as its usage.
    const call = await execute(served.t, agentKey, providerId, 'echo', {});
    expect(call.statusCode, call.body).toBe(200);
    await outcomesRecorded(served.t);
    await page.reload();
    await row.getByText('Today 0.25 USDC of 1.00 USDC', { exact: true }).waitFor();
    await row.getByText('Total 0.25 USDC of 2.00 USDC', { exact: true }).waitFor();
    await expectAccessible('keys-policy');

    // The agent key cannot lift its own leash.
    const refused = await fetch(`${served.base}/v1/keys`, { headers: { 'x-svc-api-key': agentKey } });
    expect(refused.status).toBe(403);
    await expectInvariants(served.t);
  });

  it('fits the top-up, keys and provider pages on a 375 px wide screen', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      for (const [hash, heading] of [
        ['topup', 'Top up by card'],
        ['keys', 'API keys'],
        ['listings', 'Provider listings'],
        ['earnings', 'Earnings and payouts'],
      ] as const) {
        await open(hash, heading);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${hash} at 375 px`).toBeLessThanOrEqual(0);
      }
      await expectAccessible('earnings-375px');
      await open('keys', 'API keys');
      await expectAccessible('keys-375px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
