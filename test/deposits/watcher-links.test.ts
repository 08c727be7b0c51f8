// The deposit watcher, confirmations, RPC failures and linked wallets on a real anvil.
import { sql } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { scanDeposits } from '../../src/modules/deposits/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { balanceCredits, deposit, expectError, expectLedgerConsistent, link } from './helpers.js';

let chain: TestChain;
let t: TestApp;
let slow: TestApp;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestApp({ env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  slow = await createTestApp({
    env: { ...(await chain.serviceEnv({ confirmations: 3 })), SVC_RATE_LIMIT_MULTIPLIER: '1000' },
  });
});

afterAll(async () => {
  await slow?.close();
  await t?.close();
  await chain?.stop();
});

afterEach(async () => {
  await expectLedgerConsistent(t);
  await expectLedgerConsistent(slow);
});

const platformOf = (app: TestApp) => app.deps.chain.platformWallet as `0x${string}`;

describe('deposit watcher', () => {
  it('credits a transfer from a linked wallet without a submission; a later submission is 409', async () => {
    const a = await t.createAccount();
    const wallet = await chain.newWallet(100_000_000n);
    expect((await link(t, a.apiKey, wallet)).statusCode).toBe(201);
    const stranger = await chain.newWallet(100_000_000n);
    const hash = await chain.transfer(wallet, platformOf(t), 12_000_000n);
    const unclaimed = await chain.transfer(stranger, platformOf(t), 9_000_000n);

    expect(await scanDeposits(t.deps)).toBe(1);
    expect(await balanceCredits(t, a.accountId)).toBe(12_000_000n);
    expectError(await deposit(t, a.apiKey, hash), 409, 'SVC-PAY-003');
    // Scanning again (a restart, another instance) credits nothing twice.
    expect(await scanDeposits(t.deps)).toBe(0);
    expect(await balanceCredits(t, a.accountId)).toBe(12_000_000n);

    // The unlinked sender's transfer was left alone: claimable once the wallet is linked.
    const b = await t.createAccount();
    expect((await link(t, b.apiKey, stranger)).statusCode).toBe(201);
    expect((await deposit(t, b.apiKey, unclaimed)).statusCode).toBe(201);
    expect(await balanceCredits(t, b.accountId)).toBe(9_000_000n);
    const cursor = await one<{ block_number: bigint }>(
      t.deps.db.orm,
      sql`SELECT block_number FROM chain_cursors WHERE name = 'deposit-watcher'`,
    );
    expect(BigInt(cursor?.block_number ?? 0n)).toBe(await chain.client.getBlockNumber({ cacheTime: 0 }));
  });
});

describe('confirmations (3 required)', () => {
  it('not yet confirmed is 409 SVC-PAY-006, then 201 after more blocks; the watcher waits too', async () => {
    const a = await slow.createAccount();
    const wallet = await chain.newWallet(100_000_000n);
    expect((await link(slow, a.apiKey, wallet)).statusCode).toBe(201);
    const hash = await chain.transfer(wallet, platformOf(slow), 6_000_000n);
    const early = await deposit(slow, a.apiKey, hash);
    expectError(early, 409, 'SVC-PAY-006');
    expect(early.json().error.details).toMatchObject({ confirmations: 1, required_confirmations: 3 });
    expect(await scanDeposits(slow.deps)).toBe(0);
    expect(await balanceCredits(slow, a.accountId)).toBe(0n);

    await chain.mine(2);
    expect((await deposit(slow, a.apiKey, hash)).statusCode).toBe(201);
    expect(await balanceCredits(slow, a.accountId)).toBe(6_000_000n);
  });
});

describe('chain RPC down', () => {
  let down: TestApp;
  beforeAll(async () => {
    down = await createTestApp({
      env: { ...(await chain.serviceEnv()), SVC_CHAIN_RPC_URL: 'http://127.0.0.1:9' },
    });
  });
  afterAll(() => down?.close());

  it('answers 503 SVC-SYS-002 with Retry-After and credits nothing; the endpoint allows 10 a minute', async () => {
    const a = await down.createAccount();
    for (let i = 0; i < 10; i++) {
      const res = await deposit(down, a.apiKey, `0x${'cd'.repeat(32)}`);
      expectError(res, 503, 'SVC-SYS-002');
      expect(res.headers['retry-after']).toBe('5');
    }
    expectError(await deposit(down, a.apiKey, `0x${'cd'.repeat(32)}`), 429, 'SVC-RATE-001');
    expect(await balanceCredits(down, a.accountId)).toBe(0n);
    await expectLedgerConsistent(down);
  });
});

describe('linked wallets', () => {
  it('links, lists, refuses a wallet linked elsewhere and a bad signature, unlinks', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const w1 = privateKeyToAccount(generatePrivateKey());
    const w2 = privateKeyToAccount(generatePrivateKey());
    const first = await link(t, a.apiKey, w1);
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toEqual({
      wallet_address: w1.address.toLowerCase(),
      linked_at: expect.any(String),
    });
    expect((await link(t, a.apiKey, w2)).statusCode).toBe(201);
    expectError(await link(t, b.apiKey, w1), 409, 'SVC-VAL-007');

    const c = (
      await t.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { wallet_address: w1.address } })
    ).json().data;
    const forged = await t.inject({
      method: 'POST',
      url: '/v1/wallet/links',
      headers: { 'x-svc-api-key': b.apiKey },
      payload: {
        wallet_address: w1.address,
        nonce: c.nonce,
        signature: await w2.signMessage({ message: c.message }),
      },
    });
    expectError(forged, 401, 'SVC-AUTH-001');

    const list = await t.inject({
      method: 'GET',
      url: '/v1/wallet/links',
      headers: { 'x-svc-api-key': a.apiKey },
    });
    expect(
      list
        .json()
        .data.map((l: { wallet_address: string }) => l.wallet_address)
        .sort(),
    ).toEqual([w1.address.toLowerCase(), w2.address.toLowerCase()].sort());
    const del = await t.inject({
      method: 'DELETE',
      url: `/v1/wallet/links/${w1.address}`,
      headers: { 'x-svc-api-key': a.apiKey },
    });
    expect(del.statusCode).toBe(200);
    // Now free: b can link it.
    expect((await link(t, b.apiKey, w1)).statusCode).toBe(201);
  });

  it("a wallet signature signs in to the linked account; an account's last way to sign in stays", async () => {
    const a = await t.createAccount();
    const wallet = privateKeyToAccount(generatePrivateKey());
    expect((await link(t, a.apiKey, wallet)).statusCode).toBe(201);
    const c = (
      await t.inject({
        method: 'POST',
        url: '/v1/auth/challenge',
        payload: { wallet_address: wallet.address },
      })
    ).json().data;
    const signed = {
      'x-svc-wallet': wallet.address,
      'x-svc-signature': await wallet.signMessage({ message: c.message }),
      'x-svc-nonce': c.nonce,
    };
    const status = await t.inject({ method: 'GET', url: '/v1/auth/status', headers: signed });
    expect(status.json().data.account_id).toBe(a.accountId);

    // A wallet-only account (created by its first signature) cannot remove its only wallet.
    const solo = privateKeyToAccount(generatePrivateKey());
    const c2 = (
      await t.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { wallet_address: solo.address } })
    ).json().data;
    const soloHeaders = {
      'x-svc-wallet': solo.address,
      'x-svc-signature': await solo.signMessage({ message: c2.message }),
      'x-svc-nonce': c2.nonce,
    };
    const links = await t.inject({ method: 'GET', url: '/v1/wallet/links', headers: soloHeaders });
    expect(links.json().data).toEqual([
      { wallet_address: solo.address.toLowerCase(), linked_at: expect.any(String) },
    ]);
    const refused = await t.inject({
      method: 'DELETE',
      url: `/v1/wallet/links/${solo.address}`,
      headers: soloHeaders,
    });
    expectError(refused, 409, 'SVC-VAL-007');
  });
});
