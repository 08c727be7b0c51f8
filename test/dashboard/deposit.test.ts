// The deposit page in a real browser against the service and a real local chain (anvil): the address and
// its QR code, the devnet faucet, the one-click transfer from the dev wallet and its claim, a hash
// submitted by hand, the error states, the new balance and the deposits in history. Then the provider
// pages with the same account: a listing created in the page, the linked dev wallet made the payout
// wallet, earnings after another account's call, and the settlement paid to that wallet.
import type { Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdcAbi } from '../../src/modules/chain/index.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { execute, fund, outcomesRecorded } from '../execution/fixtures.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  expectAccessible as accessible,
  type Browser,
  launchBrowser,
  newPage,
  openPage,
  type Served,
  screenshot,
  serveApp,
} from './browser.js';

let chain: TestChain;
let served: Served;
let platform: `0x${string}`;
let browser: Browser;
let upstream: ProviderServer;
let page: Page;
const cspErrors: string[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  const env = await chain.serviceEnv();
  platform = env.SVC_PLATFORM_WALLET as `0x${string}`;
  served = await serveApp(env);
  upstream = await startProviderServer();
  browser = await launchBrowser();
  page = await newPage(browser, cspErrors);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  await served?.t.close();
  await chain?.stop();
});

const open = (hash: string, heading: string) => openPage(page, served, hash, heading);
const expectAccessible = (name: string) => accessible(page, name);

async function devWallet() {
  const key = await page.evaluate(() => localStorage.getItem('svc.devWalletKey'));
  return privateKeyToAccount(key as `0x${string}`);
}

describe('deposit page on a devnet chain', { timeout: 120_000 }, () => {
  it('signs in with the dev wallet and shows the platform address with its QR code', async () => {
    await page.goto(`${served.base}/dashboard`);
    await page.getByRole('button', { name: 'Sign in with the dev wallet' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await open('deposit', 'Deposit USDC');
    const address = platform.toLowerCase();
    await expect(page.getByTestId('platform-wallet').textContent()).resolves.toBe(address);
    await page.getByRole('img', { name: `QR code of the deposit address ${address}` }).waitFor();
    await page.getByTestId('deposit-balance').getByText('0.00 USDC').waitFor();
    await page.getByText('No deposit yet.').waitFor();
    // Signing in with the dev wallet linked it: it is listed, and the page offers no second link.
    const wallet = (await devWallet()).address.toLowerCase();
    await page.getByRole('region', { name: 'Linked wallets' }).getByText(wallet).waitFor();
    expect(await page.getByRole('button', { name: 'Link the dev wallet' }).isVisible()).toBe(false);
  });

  it('gets test USDC from the faucet and deposits it in one click', async () => {
    await page.getByRole('button', { name: 'Get 100 test USDC' }).click();
    await page.getByText(/^Faucet sent 100\.00 USDC \(tx 0x[0-9a-f]{64}\)\.$/).waitFor();
    const wallet = await devWallet();
    const held = await chain.client.readContract({
      address: chain.usdc,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [wallet.address],
    });
    expect(held).toBe(100_000_000n);

    await page.getByLabel('Amount to deposit (USDC)').fill('10');
    await page.getByRole('button', { name: 'Send and claim' }).click();
    await page
      .getByText(/^Deposit credited: 10\.00 USDC\. New balance: 10\.00 USDC\. \(tx 0x[0-9a-f]{64}\)$/)
      .waitFor();
    await page.getByTestId('deposit-balance').getByText('10.00 USDC').waitFor();
    await page
      .getByRole('region', { name: 'Recent deposits' })
      .getByRole('cell', { name: /^\+?10\.00 USDC$/ })
      .waitFor();
    await expectAccessible('deposit-devnet');
  });

  it('claims a transfer by its hash, and explains a hash it cannot credit', async () => {
    const wallet = await devWallet();
    const txHash = await chain.transfer(wallet, platform, 7_000_000n);
    await page.getByLabel('Transaction hash').fill(txHash);
    await page.getByRole('button', { name: 'Claim deposit' }).click();
    await page.getByText('Deposit credited: 7.00 USDC. New balance: 17.00 USDC.').waitFor();
    await page.getByTestId('deposit-balance').getByText('17.00 USDC').waitFor();
    await page.getByRole('region', { name: 'Recent deposits' }).getByText(txHash).waitFor();

    // The same hash again: already on the balance, said plainly and credited once.
    await page.getByRole('button', { name: 'Claim deposit' }).click();
    await page.getByText('This transfer is already credited to your balance.').waitFor();
    await page.getByTestId('deposit-balance').getByText('17.00 USDC').waitFor();

    // A hash with no transaction behind it: the API's message, code and request id.
    await page.getByLabel('Transaction hash').fill(`0x${'ab'.repeat(32)}`);
    await page.getByRole('button', { name: 'Claim deposit' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Code SVC-PAY-002', { exact: false }).waitFor();
    await expect(alert.textContent()).resolves.toMatch(/request id \S+/);
    await page.getByTestId('deposit-balance').getByText('17.00 USDC').waitFor();
    expect(await checkLedgerInvariants(served.t.deps.db.orm)).toEqual([]);
  });

  it('shows the new balance and both deposits on the balance and history pages', async () => {
    await open('overview', 'Balance');
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('17.00 USDC');
    await open('history', 'History and calls');
    await page.getByLabel('Type').selectOption('deposit');
    await page.getByRole('cell', { name: /^\+?7\.00 USDC$/ }).waitFor();
    await page.getByRole('cell', { name: /^\+?10\.00 USDC$/ }).waitFor();
  });

  it('creates a provider listing in the page and shows its secret once', async () => {
    await open('listings', 'Provider listings');
    await page.getByText('You list no provider yet: create one below.').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Dashboard echo');
    await page.getByLabel('Provider id').fill('dash-echo');
    await page.getByLabel('Description', { exact: true }).fill('Echoes what it gets');
    await page.getByLabel('Base URL').fill(upstream.url);
    await page.getByLabel('Endpoint slug').fill('echo');
    await page.getByLabel('Endpoint description').fill('Echo the body');
    await page.getByLabel('Price per call (USDC)').fill('0.25');
    await page.getByRole('button', { name: 'Create listing' }).click();
    await expect(page.getByTestId('provider-secret').inputValue()).resolves.toMatch(/\S{16,}/);
    const row = page.getByRole('row').filter({ hasText: 'dash-echo' });
    await row.getByText('POST echo: 0.25 USDC').waitFor();
    await row.getByRole('cell', { name: 'active', exact: true }).waitFor();
    await expectAccessible('provider-listings');
    const listed = await fetch(`${served.base}/v1/provider/listings`, { headers: await walletHeaders() });
    expect(
      ((await listed.json()) as { data: { provider_id: string }[] }).data.map((l) => l.provider_id),
    ).toEqual(['dash-echo']);
  });

  it('sets the payout wallet from a linked wallet and shows earnings, then the settlement', async () => {
    await open('earnings', 'Earnings and payouts');
    await page.getByText('None yet: payouts wait until you choose one.').waitFor();
    const wallet = (await devWallet()).address.toLowerCase();
    await page.getByLabel('Linked wallet').selectOption(wallet);
    await page.getByRole('button', { name: 'Set payout wallet' }).click();
    await page.getByText('Payout wallet saved.').waitFor();
    await page.getByTestId('payout-wallet').getByText(wallet).waitFor();
    await page.getByText('No settlement yet', { exact: false }).waitFor();

    // Another account calls the listing: that call earns its price for the owner.
    const caller = await served.t.createAccount('caller@example.com');
    await fund(served.t, caller.accountId, '5');
    const call = await execute(served.t, caller.apiKey, 'dash-echo', 'echo', {});
    expect(call.statusCode, call.body).toBe(200);
    await outcomesRecorded(served.t);
    await page.reload();
    await page
      .getByTestId('earnings-calls')
      .getByText(/^1 call not settled yet\./)
      .waitFor();
    const earnings = (await (
      await fetch(`${served.base}/v1/provider/earnings`, { headers: await walletHeaders() })
    ).json()) as { data: { unsettled_net_usdc: string } };
    await page.getByTestId('earnings-net').getByText(usdcText(earnings.data.unsettled_net_usdc)).waitFor();
    await expectAccessible('provider-earnings');

    // Settle now: the settlement shows with the payout to the chosen wallet.
    const run = await served.t.admin('POST', '/v1/admin/settlements/run', {
      until: new Date().toISOString(),
    });
    expect(run.statusCode, run.body).toBe(200);
    await page.reload();
    const row = page
      .getByRole('region', { name: 'Settlements' })
      .getByRole('row')
      .filter({ hasText: 'dash-echo' });
    await row.getByRole('cell', { name: '0.25 USDC', exact: true }).waitFor();
    await page
      .getByTestId('earnings-calls')
      .getByText(/^0 calls not settled yet\./)
      .waitFor();
    await screenshot(page, 'provider-settlements');
    expect(cspErrors).toEqual([]);
  });
});

/** The page's wallet session as request headers. */
async function walletHeaders(): Promise<Record<string, string>> {
  const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('svc.session') ?? '{}'));
  return { 'x-svc-wallet': stored.wallet, 'x-svc-nonce': stored.nonce, 'x-svc-signature': stored.signature };
}

/** The page's rendering of a USDC amount ("0.242500" → "0.2425 USDC"). */
function usdcText(amount: string): string {
  const [whole, frac = ''] = amount.split('.');
  return `${whole}.${frac.replace(/0+$/, '').padEnd(2, '0')} USDC`;
}
