// POST /v1/wallet/deposit on a real anvil, every check of DESIGN.md section 11 in its order and code.
import { sql } from 'drizzle-orm';
import { createWalletClient, encodeFunctionData, http, type PrivateKeyAccount } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { usdcAbi } from '../../src/modules/chain/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { balanceCredits, deposit, expectError, expectLedgerConsistent, link } from './helpers.js';

let chain: TestChain;
let t: TestApp;
let platform: `0x${string}`;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestApp({ env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  platform = t.deps.chain.platformWallet as `0x${string}`;
});

afterAll(async () => {
  await t?.close();
  await chain?.stop();
});

afterEach(async () => {
  await expectLedgerConsistent(t);
});

async function accountWithWallet(usdc = 100_000_000n) {
  const acc = await t.createAccount();
  const wallet = await chain.newWallet(usdc);
  expect((await link(t, acc.apiKey, wallet)).statusCode).toBe(201);
  return { ...acc, wallet };
}

describe('POST /v1/wallet/deposit', () => {
  it('credits exactly the transferred atomic units, once; shows everywhere; queues the e-mail', async () => {
    const a = await accountWithWallet();
    const hash = await chain.transfer(a.wallet, platform, 7_123_456n);
    const res = await deposit(t, a.apiKey, hash);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      amount_usdc: '7.123456',
      status: 'confirmed',
      new_balance_usdc: '7.123456',
      tx_hash: hash,
    });
    expect(res.json().data.deposit_id).toMatch(/^dep_/);
    expect(await balanceCredits(t, a.accountId)).toBe(7_123_456n);

    const headers = { 'x-svc-api-key': a.apiKey };
    const balance = (await t.inject({ method: 'GET', url: '/v1/wallet/balance', headers })).json().data;
    expect(balance.total_deposited_usdc).toBe('7.123456');
    const history = (
      await t.inject({ method: 'GET', url: '/v1/wallet/history?type=deposit', headers })
    ).json();
    expect(history.data[0]).toMatchObject({ type: 'deposit', amount_usdc: '+7.123456', tx_hash: hash });
    const billing = (await t.inject({ method: 'GET', url: '/v1/billing/transactions', headers })).json();
    expect(billing.transactions[0]).toMatchObject({
      type: 'deposit',
      amountUsdc: '7.123456',
      referenceId: res.json().data.deposit_id,
    });

    const payments = await rows<{ successful_payments: bigint }>(
      t.deps.db.orm,
      sql`SELECT successful_payments FROM accounts WHERE id = ${a.accountId}`,
    );
    expect(payments[0]?.successful_payments).toBe(1n);
    await expect
      .poll(async () =>
        rows<{ subject: string }>(
          t.deps.db.orm,
          sql`SELECT subject FROM email_outbox WHERE account_id = ${a.accountId} AND kind = 'payment_confirmed'`,
        ),
      )
      .toEqual([{ subject: 'Payment confirmed: 7.123456 USDC deposited' }]);

    // The same hash again, and in upper case: already processed.
    expectError(await deposit(t, a.apiKey, hash), 409, 'SVC-PAY-003');
    expectError(await deposit(t, a.apiKey, `0x${hash.slice(2).toUpperCase()}`), 409, 'SVC-PAY-003');
    expect(await balanceCredits(t, a.accountId)).toBe(7_123_456n);
  });

  it('the same hash submitted 20 times at once is credited once', async () => {
    const a = await accountWithWallet();
    const hash = await chain.transfer(a.wallet, platform, 25_000_000n);
    const results = await Promise.all(Array.from({ length: 20 }, () => deposit(t, a.apiKey, hash)));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) expectError(r, 409, 'SVC-PAY-003');
    expect(await balanceCredits(t, a.accountId)).toBe(25_000_000n);
  });

  it('refuses a deposit below 5 USDC', async () => {
    const a = await accountWithWallet();
    const hash = await chain.transfer(a.wallet, platform, 4_999_999n);
    expectError(await deposit(t, a.apiKey, hash), 400, 'SVC-PAY-004');
    expect(await balanceCredits(t, a.accountId)).toBe(0n);
  });

  it("a transfer from a wallet that is not the caller's cannot be claimed; its owner still can", async () => {
    const owner = await t.createAccount();
    const ownerWallet = await chain.newWallet(50_000_000n);
    const hash = await chain.transfer(ownerWallet, platform, 10_000_000n);
    // Someone watching the mempool submits it first.
    const thief = await accountWithWallet();
    expectError(await deposit(t, thief.apiKey, hash), 400, 'SVC-PAY-005');
    // The sender, before linking the wallet: not yet theirs either.
    expectError(await deposit(t, owner.apiKey, hash), 400, 'SVC-PAY-005');
    expect((await link(t, owner.apiKey, ownerWallet)).statusCode).toBe(201);
    expect((await deposit(t, owner.apiKey, hash)).statusCode).toBe(201);
    expect(await balanceCredits(t, owner.accountId)).toBe(10_000_000n);
    expect(await balanceCredits(t, thief.accountId)).toBe(0n);
  });

  it('a transfer of another ERC-20 (same name, same decimals) is not a deposit', async () => {
    const a = await accountWithWallet();
    const fake = await chain.deployToken('USD Coin', 'USDC');
    await chain.mint(a.wallet.address, 100_000_000n, fake);
    const hash = await chain.transfer(a.wallet, platform, 50_000_000n, fake);
    expectError(await deposit(t, a.apiKey, hash), 400, 'SVC-PAY-005');
  });

  it('a USDC transfer to another address is not a deposit', async () => {
    const a = await accountWithWallet();
    const hash = await chain.transfer(a.wallet, (await chain.newWallet()).address, 10_000_000n);
    expectError(await deposit(t, a.apiKey, hash), 400, 'SVC-PAY-005');
  });

  it('a reverted transaction is not a deposit', async () => {
    const a = await accountWithWallet(1_000_000n);
    const hash = await sendWithoutSimulation(a.wallet, 20_000_000n);
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    expectError(await deposit(t, a.apiKey, hash), 400, 'SVC-PAY-005');
  });

  it('unknown and malformed hashes; no credential first', async () => {
    const a = await accountWithWallet(0n);
    expectError(await deposit(t, a.apiKey, `0x${'ab'.repeat(32)}`), 400, 'SVC-PAY-002');
    for (const bad of ['0x1234', `${'ab'.repeat(32)}`, `0x${'zz'.repeat(32)}`, `0x${'ab'.repeat(33)}`]) {
      expectError(await deposit(t, a.apiKey, bad), 400, 'SVC-VAL-001');
    }
    const anonymous = await t.inject({
      method: 'POST',
      url: '/v1/wallet/deposit',
      payload: { tx_hash: 'x' },
    });
    expectError(anonymous, 401, 'SVC-AUTH-001');
  });
});

async function sendWithoutSimulation(from: PrivateKeyAccount, credits: bigint) {
  const wallet = createWalletClient({ chain: foundry, transport: http(chain.rpcUrl), account: from });
  return wallet.sendTransaction({
    to: chain.usdc,
    gas: 100_000n,
    data: encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [platform, credits] }),
  });
}
