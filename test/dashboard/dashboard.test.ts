// The dashboard in a real browser against the real service on a real port: e-mail sign-in with the code
// from the outbox, a key created in the page and used against the API, a card top-up through the local
// checkout, a call showing up in usage and its CSV, a daily limit, revocation, the deposit page's
// "not available" state, an expired session, the devnet dev wallet, axe-core on each page, 375 px width.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, expectInvariants, outcomesRecorded, registerProvider } from '../execution/fixtures.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  expectAccessible as accessible,
  type Browser,
  loginCode as codeFor,
  sessionHeaders as headersOf,
  launchBrowser,
  newPage,
  openPage,
  type Served,
  screenshot,
  serveApp,
} from './browser.js';

const EMAIL = 'dash.user@example.com';
let served: Served;
let browser: Browser;
let page: Page;
let upstream: ProviderServer;
let providerId: string;
let apiKey = '';
const cspErrors: string[] = [];

// Building an app and starting Chromium on a shared 2-core machine can take over a minute.
beforeAll(async () => {
  served = await serveApp();
  upstream = await startProviderServer();
  ({ providerId } = await registerProvider(served.t, upstream.url, [
    {
      slug: 'echo',
      price_usdc: '0.25',
      parameters: { hello: { type: 'string', required: false, description: 'anything' } },
    },
  ]));
  browser = await launchBrowser();
  page = await newPage(browser, cspErrors);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  await served?.t.close();
});

const api = (method: string, path: string, headers: Record<string, string>) =>
  fetch(`${served.base}${path}`, { method, headers });

const loginCode = () => codeFor(served, EMAIL);
const expectAccessible = (name: string) => accessible(page, name);
const open = (hash: string, heading: string) => openPage(page, served, hash, heading);

/** Waits for the signed-in shell; an error shown instead fails the test with the page's message. */
async function signedInOrError() {
  const signOut = page.getByRole('button', { name: 'Sign out' });
  const failure = page.locator('.error');
  await signOut.or(failure).first().waitFor();
  if (!(await signOut.isVisible())) throw new Error(`sign-in failed: ${await failure.textContent()}`);
}

const sessionHeaders = () => headersOf(page);

// A real browser on a shared 2-core machine: each step gets more than the default 30 s.
describe('dashboard in Chromium', { timeout: 90_000 }, () => {
  it('serves the landing page, with links to the dashboard and the docs', async () => {
    await page.goto(`${served.base}/`);
    await expect(page.getByRole('link', { name: 'Open the dashboard' }).getAttribute('href')).resolves.toBe(
      '/dashboard',
    );
    await expectAccessible('landing');
  });

  it('signs in with the e-mailed code read from the outbox', async () => {
    await page.goto(`${served.base}/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expectAccessible('sign-in');
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByLabel('6-digit code').waitFor();
    await page.getByLabel('6-digit code').fill(await loginCode());
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Balance' }).waitFor();
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('0.00 USDC');
    // The token stays out of the address bar.
    const token = (await sessionHeaders()).authorization?.slice(7) ?? '';
    expect(token.length).toBeGreaterThan(10);
    expect(page.url()).not.toContain(token);
  });

  it('tops up through the local checkout and shows the new balance', async () => {
    await open('topup', 'Top up by card');
    await page.getByLabel('Amount (USD)').fill('25');
    await page.getByRole('button', { name: 'Continue to checkout' }).click();
    await page.waitForURL(/\/checkout\/cs_local_/);
    await page.getByRole('button', { name: /^Pay \$25\.00/ }).click();
    await page.waitForURL(/\/dashboard#topup\?result=paid/);
    await page.getByText('Payment received: your balance is updated.').waitFor();
    await page.getByTestId('topup-balance').getByText('25.00 USDC').waitFor();
    await page.getByRole('cell', { name: 'completed' }).waitFor();
    await expectAccessible('top-up');
    await open('overview', 'Balance');
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('25.00 USDC');
    await expectAccessible('balance');
  });

  it('creates a key that works against the API, shown once with a copy button', async () => {
    await open('keys', 'API keys');
    await page.getByLabel('Name').fill('browser agent');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    apiKey = await shown.inputValue();
    expect(apiKey).toMatch(/^svc_sk_/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await page.getByRole('cell', { name: 'browser agent', exact: true }).waitFor();
    await expectAccessible('keys');

    const status = await api('GET', '/v1/auth/status', { 'x-svc-api-key': apiKey });
    expect(status.status).toBe(200);
    expect(((await status.json()) as { data: { tier: string } }).data.tier).toBe('authenticated');
    const call = await execute(served.t, apiKey, providerId, 'echo', { hello: 'dashboard' });
    expect(call.statusCode, call.body).toBe(200);
    await outcomesRecorded(served.t);

    // Reloading shows the key's prefix only, never the key.
    await page.reload();
    await page.getByRole('cell', { name: 'browser agent', exact: true }).waitFor();
    expect(await page.content()).not.toContain(apiKey);
  });

  it('shows the call in history and usage, and downloads the usage CSV', async () => {
    await open('history', 'History and calls');
    await page.getByRole('cell', { name: '-0.25 USDC' }).first().waitFor();
    await page.getByLabel('Type').selectOption('deposit');
    await page
      .getByText('Nothing here yet.')
      .or(page.getByRole('cell', { name: 'deposit' }).first())
      .waitFor();
    await expectAccessible('history');

    await open('usage', 'Usage by provider');
    await page.getByRole('cell', { name: `Test provider ${providerId}` }).waitFor();
    await expectAccessible('usage');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path()) as string, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(providerId);

    // The call shows in the 30-day chart's table on the balance page.
    await open('overview', 'Balance');
    await page.getByText('0.25 USDC over 1 call.').waitFor();
    await screenshot(page, 'balance-with-spend');
  });

  it('sets a daily limit that the API then reports', async () => {
    await open('limits', 'Limits and alerts');
    await page.getByLabel('Daily limit (USDC)').fill('12.5');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText(/^Saved\. Daily limit: 12\.500000/).waitFor();
    const limits = await api('GET', '/v1/billing/limits', await sessionHeaders());
    expect(await limits.json()).toMatchObject({ dailySpendLimitUsdc: '12.500000', perCallLimitUsdc: null });
    await page.getByLabel('Weekly summary').check();
    await page.getByRole('button', { name: 'Save alerts' }).click();
    await page.getByText('Alert settings saved.').waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Limits and alerts' }).waitFor();
    await expect(page.getByLabel('Daily limit (USDC)').inputValue()).resolves.toBe('12.5');
    await expect(page.getByLabel('Weekly summary').isChecked()).resolves.toBe(true);
    await expectAccessible('limits');
  });

  it('revokes a key after confirmation, and the API refuses it from then on', async () => {
    await open('keys', 'API keys');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke key browser agent' }).click();
    await page.getByRole('cell', { name: 'revoked' }).waitFor();
    const refused = await api('GET', '/v1/billing/balance', { 'x-svc-api-key': apiKey });
    expect(refused.status).toBe(401);
    await expectInvariants(served.t);
  });

  it('browses and searches the catalogue', async () => {
    await open('catalog', 'Catalogue');
    await page.getByRole('heading', { level: 3, name: `Test provider ${providerId}` }).waitFor();
    await expectAccessible('catalog');
    await page.getByLabel('Search the catalogue').fill('echo endpoint');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { level: 3, name: `Test provider ${providerId} · echo` }).waitFor();
  });

  it('shows the deposit address, or says so when this server has no deposit routes', async () => {
    await open('deposit', 'Deposit USDC');
    // Without the chain module the route is missing (404) and the page says so; with it, the page shows the
    // address, or the API's error (e.g. a chain that is not ready) with its code.
    const deposits = await api('GET', '/v1/wallet/deposit-address', {});
    if (deposits.status === 404) {
      await page.getByText('USDC deposits are not available on this server.').waitFor();
    } else if (deposits.status === 200) {
      const { data } = (await deposits.json()) as { data: { platform_wallet: string } };
      await expect(page.getByTestId('platform-wallet').textContent()).resolves.toBe(data.platform_wallet);
    } else {
      const { error } = (await deposits.json()) as { error: { code: string } };
      await page.getByRole('alert').getByText(`Code ${error.code}`, { exact: false }).waitFor();
    }
    await expectAccessible('deposit');
  });

  it('fits a 375 px wide screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      for (const [hash, heading] of [
        ['overview', 'Balance'],
        ['keys', 'API keys'],
        ['limits', 'Limits and alerts'],
      ] as const) {
        await open(hash, heading);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${hash} at 375 px`).toBeLessThanOrEqual(0);
      }
      await screenshot(page, 'limits-375px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('shows sign-in again, with a reason, when the session is refused', async () => {
    await page.evaluate(() => {
      const session = JSON.parse(sessionStorage.getItem('svc.session') ?? '{}');
      sessionStorage.setItem('svc.session', JSON.stringify({ ...session, token: 'svc_st_not-a-real-token' }));
    });
    await page.reload();
    await page.getByText('Your session has expired. Please sign in again.').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  });

  it('signs in with the devnet dev wallet (SIWE signed in the page)', async () => {
    await page.getByRole('button', { name: 'Sign in with the dev wallet' }).click();
    await signedInOrError();
    const key = await page.evaluate(() => localStorage.getItem('svc.devWalletKey'));
    expect(key).toMatch(/^0x[0-9a-f]{64}$/);
    await page.getByText('Signed in with a wallet').waitFor();
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('svc.session') ?? '{}'));
    const status = await api('GET', '/v1/auth/status', {
      'x-svc-wallet': stored.wallet,
      'x-svc-nonce': stored.nonce,
      'x-svc-signature': stored.signature,
    });
    expect(((await status.json()) as { data: { tier: string } }).data.tier).toBe('authenticated');
    expect(cspErrors).toEqual([]);
  });
});
