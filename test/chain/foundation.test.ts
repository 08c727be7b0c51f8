// The chain foundation on a real anvil: deposit address, devnet routes, the faucet through the platform
// key's one nonce allocator (concurrent mints get distinct nonces, each stored before broadcast), an
// idempotent platform transaction, and RPC failures as 503 SVC-SYS-002 with Retry-After.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import {
  sendPlatformTransaction,
  usdcAbi,
  waitForPlatformTransaction,
} from '../../src/modules/chain/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';

let chain: TestChain;
let t: TestApp;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestApp({ env: await chain.serviceEnv() });
});

afterAll(async () => {
  await t?.close();
  await chain?.stop();
});

describe('chain foundation', () => {
  it('GET /v1/wallet/deposit-address tells where to send USDC, without a credential', async () => {
    const res = await t.inject({ method: 'GET', url: '/v1/wallet/deposit-address' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      network: 'eip155:31337',
      chain_id: 31337,
      usdc_address: chain.usdc.toLowerCase(),
      platform_wallet: t.deps.chain.platformWallet?.toLowerCase(),
      min_deposit_usdc: '5',
      confirmations: 1,
    });
  });

  it('GET /v1/devnet describes the local chain', async () => {
    const res = await t.inject({ method: 'GET', url: '/v1/devnet' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      chain_id: 31337,
      rpc_url: chain.rpcUrl,
      usdc_address: chain.usdc.toLowerCase(),
    });
  });

  it('the faucet mints exact amounts; concurrent requests get distinct nonces, all stored', async () => {
    const wallet = await chain.newWallet();
    const results = await Promise.all(
      ['1', '2.5', '10000', '0.000001'].map((amount_usdc) =>
        t.inject({
          method: 'POST',
          url: '/v1/devnet/faucet',
          payload: { address: wallet.address, amount_usdc },
        }),
      ),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const balance = await chain.client.readContract({
      address: chain.usdc,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [wallet.address],
    });
    expect(balance).toBe(10_003_500_001n);
    const stored = await rows<{ nonce: bigint; status: string; tx_hash: string }>(
      t.deps.db.orm,
      sql`SELECT nonce, status, tx_hash FROM platform_transactions WHERE purpose = 'faucet' ORDER BY nonce`,
    );
    expect(stored.map((s) => Number(s.nonce))).toEqual([0, 1, 2, 3]);
    expect(stored.every((s) => s.status === 'confirmed')).toBe(true);
    expect(new Set(results.map((r) => r.json().data.tx_hash))).toEqual(new Set(stored.map((s) => s.tx_hash)));
  });

  it('rejects a faucet amount above 10000 or zero', async () => {
    for (const amount_usdc of ['10000.000001', '0', '-1', 'abc']) {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/devnet/faucet',
        payload: { address: '0x000000000000000000000000000000000000dEaD', amount_usdc },
      });
      expect(res.statusCode, amount_usdc).toBe(400);
      expect(res.json().error.code).toBe('SVC-VAL-001');
    }
  });

  it('a platform transaction is sent once per (purpose, reference)', async () => {
    const to = (await chain.newWallet()).address;
    const req = { purpose: 'test', reference: 'same-ref', to, value: 1n };
    const [a, b] = await Promise.all([
      sendPlatformTransaction(t.deps, req),
      sendPlatformTransaction(t.deps, req),
    ]);
    expect(a.id).toBe(b.id);
    const again = await sendPlatformTransaction(t.deps, req);
    expect(again.txHash).toBe(a.txHash);
    expect((await waitForPlatformTransaction(t.deps, a.id)).status).toBe('confirmed');
    expect(await chain.client.getBalance({ address: to })).toBe(10n ** 18n + 1n);
  });
});

describe('chain RPC down', () => {
  let down: TestApp;
  beforeAll(async () => {
    const env = await chain.serviceEnv();
    down = await createTestApp({ env: { ...env, SVC_CHAIN_RPC_URL: 'http://127.0.0.1:9' } });
  });
  afterAll(() => down?.close());

  it('the faucet answers 503 SVC-SYS-002 with Retry-After', async () => {
    const res = await down.inject({
      method: 'POST',
      url: '/v1/devnet/faucet',
      payload: { address: '0x000000000000000000000000000000000000dEaD', amount_usdc: '1' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('SVC-SYS-002');
    expect(res.headers['retry-after']).toBe('5');
  });
});
