// The deposit page in a real browser against the service and a real local chain (anvil): the address and
// its QR code, the devnet faucet, the one-click transfer from the dev wallet and its claim, a hash
// submitted by hand, the error states, the new balance and the deposits in history.
import type { Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdcAbi } from '../../src/modules/chain/index.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import {
  expectAccessible as accessible,
  type Browser,
  launchBrowser,
  openPage,
  type Served,
  serveApp,
} from './browser.js';

let chain: TestChain;
let served: Served;
let platform: `0x${string}`;
let browser: Browser;
let page: Page;
const cspErrors: string[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  const env = await chain.serviceEnv();
  platform = env.SVC_PLATFORM_WALLET as `0x${string}`;
  served = await serveApp(env);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.setDefaultTimeout(45_000);
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
  });
}, 180_000);
afterAll(async () => {
  await browser?.close();
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
    expect(cspErrors).toEqual([]);
  });
});
