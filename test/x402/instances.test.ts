// Two instances of the service on one PostgreSQL and one chain: one signed payment, replayed on both at
// once, buys one call and settles once. Skipped on PGlite (it cannot be shared between instances).
import { decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { balanceOf, fundedWallet, listen, offerOf, paidCall, paymentRows, signedHeader } from './helpers.js';

const shared = Boolean(process.env.DATABASE_URL);

describe.skipIf(!shared)('x402 on two instances (skipped on PGlite: it cannot be shared)', () => {
  let chain: TestChain;
  let provider: ProviderServer;
  let a: TestApp;
  let b: TestApp;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    chain = await startTestChain();
    provider = await startProviderServer();
    // One service: one platform key, one database (the nonce allocator and the reservations are shared).
    const env = { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' };
    a = await createTestApp({ env });
    b = await createTestApp({ env, schema: a.schema as string });
    const { providerId } = await registerProvider(a, provider.url, [{ slug: 'echo', price_usdc: '0.25' }]);
    urlA = `${await listen(a)}/x402/${providerId}/echo`;
    urlB = `${await listen(b)}/x402/${providerId}/echo`;
  }, 180_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await provider?.close();
    await chain?.stop();
  });

  it('one payment replayed on both instances concurrently settles once, every answer the same', async () => {
    const payer = await fundedWallet(a, '2');
    const before = await balanceOf(chain, payer.address);
    const { header } = await signedHeader(payer, await offerOf(urlA, {}));
    const hitsBefore = provider.hits('/echo');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => paidCall(i % 2 === 0 ? urlA : urlB, header, {})),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const txs = new Set(
      answers.map(
        (r) => decodePaymentResponseHeader(r.headers.get('PAYMENT-RESPONSE') as string).transaction,
      ),
    );
    expect(txs.size).toBe(1);
    expect(provider.hits('/echo') - hitsBefore).toBe(1);
    expect(await balanceOf(chain, payer.address)).toBe(before - 250_000n);
    const mine = (await paymentRows(a)).filter((p) => p.payer === payer.address.toLowerCase());
    expect(mine.map((p) => p.status)).toEqual(['settled']);
  });

  it('payments from many wallets on both instances share one nonce allocator: all settle', async () => {
    const payers = await Promise.all(Array.from({ length: 6 }, () => fundedWallet(a, '1')));
    const offer = await offerOf(urlA, {});
    const headers = await Promise.all(payers.map((p) => signedHeader(p, offer)));
    const answers = await Promise.all(
      headers.map(({ header }, i) => paidCall(i % 2 === 0 ? urlA : urlB, header, {})),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    for (const p of payers) expect(await balanceOf(chain, p.address)).toBe(750_000n);
  });
});
