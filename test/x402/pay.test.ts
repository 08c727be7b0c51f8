// A stock x402 client (@x402/fetch + @x402/evm, a viem account funded by the faucet) pays per call on a
// real anvil: exact on-chain movement, no transfer for a provider failure, one settlement for a payment
// replayed 10× concurrently, and the stored answer for a later replay.
import { decodePaymentResponseHeader } from '@x402/core/http';
import { sql } from 'drizzle-orm';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  balanceOf,
  fundedWallet,
  listen,
  offerOf,
  paidCall,
  paymentRows,
  signedHeader,
  stockClient,
} from './helpers.js';

let chain: TestChain;
let t: TestApp;
let provider: ProviderServer;
let base: string;
let providerId: string;
let platform: string;

beforeAll(async () => {
  chain = await startTestChain();
  provider = await startProviderServer();
  t = await createTestApp({ env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  base = await listen(t);
  platform = t.deps.chain.platformWallet as string;
  ({ providerId } = await registerProvider(t, provider.url, [
    {
      slug: 'echo',
      price_usdc: '0.25',
      parameters: { city: { type: 'string', required: true, description: 'City' } },
    },
    { slug: 'fail', price_usdc: '0.25' },
    { slug: 'bad-request', price_usdc: '0.5' },
  ]));
}, 180_000);

afterAll(async () => {
  await t?.close();
  await provider?.close();
  await chain?.stop();
});

describe('x402 with a stock client', () => {
  it('answers 402 with PAYMENT-REQUIRED and the same object as the body', async () => {
    const url = `${base}/x402/${providerId}/echo`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"city":"Oslo"}',
    });
    expect(res.status).toBe(402);
    const body = await res.json();
    const offer = await offerOf(url, { city: 'Oslo' });
    expect(body).toEqual(offer);
    expect(offer).toMatchObject({
      x402Version: 2,
      resource: { url: `${t.config.publicUrl}/x402/${providerId}/echo`, mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:31337',
          amount: '250000',
          asset: chain.usdc,
          payTo: platform,
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    });
    // Endpoint timeout (2 s) + the settlement margin.
    expect(offer.accepts[0]?.maxTimeoutSeconds).toBe(62);
  });

  it('pays: payer down and platform wallet up by exactly the price, PAYMENT-RESPONSE on-chain', async () => {
    const payer = await fundedWallet(t, '3');
    const [payerBefore, platformBefore] = [
      await balanceOf(chain, payer.address),
      await balanceOf(chain, platform),
    ];
    const { fetch: pay } = stockClient(chain, payer);
    const res = await pay(`${base}/x402/${providerId}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ city: 'Oslo' }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toMatchObject({ ok: true, received: { city: 'Oslo' } });
    expect(body.svc).toMatchObject({ provider_id: providerId, endpoint: 'echo', charged_usdc: '0.250000' });
    const settlement = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE') as string);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:31337', payer: payer.address });
    const receipt = await chain.client.getTransactionReceipt({ hash: settlement.transaction as Hex });
    expect(receipt.status).toBe('success');
    expect(await balanceOf(chain, payer.address)).toBe(payerBefore - 250_000n);
    expect(await balanceOf(chain, platform)).toBe(platformBefore + 250_000n);
    // Recorded as an x402 transfer (never claimable as a deposit), and as a call.
    const transfers = await rows<{ kind: string; amount_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT kind, amount_credits FROM chain_transfers WHERE tx_hash = ${settlement.transaction.toLowerCase()}`,
    );
    expect(transfers).toEqual([{ kind: 'x402', amount_credits: 250_000n }]);
    const calls = await rows<{ status: string; account_id: string | null }>(
      t.deps.db.orm,
      sql`SELECT c.status, c.account_id FROM calls c JOIN x402_payments p ON p.id = c.x402_payment_id
          WHERE p.tx_hash = ${settlement.transaction.toLowerCase()} AND p.status = 'settled'`,
    );
    expect(calls).toEqual([{ status: 'success', account_id: null }]);
  });

  it('a provider 4xx is charged and returned with its status', async () => {
    const payer = await fundedWallet(t, '1');
    const before = await balanceOf(chain, payer.address);
    const { fetch: pay } = stockClient(chain, payer);
    const res = await pay(`${base}/x402/${providerId}/bad-request`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).data).toMatchObject({ error: 'bad input' });
    expect(res.headers.get('PAYMENT-RESPONSE')).toBeTruthy();
    expect(await balanceOf(chain, payer.address)).toBe(before - 500_000n);
  });

  it('provider 5xx: no transfer, no PAYMENT-RESPONSE, the payer pays nothing', async () => {
    const payer = await fundedWallet(t, '1');
    const [payerBefore, platformBefore] = [
      await balanceOf(chain, payer.address),
      await balanceOf(chain, platform),
    ];
    const { fetch: pay } = stockClient(chain, payer);
    const res = await pay(`${base}/x402/${providerId}/fail`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error).toMatchObject({
      code: 'SVC-EXE-004',
      details: { charged_usdc: '0.000000', reason: 'provider_5xx' },
    });
    expect(res.headers.get('PAYMENT-RESPONSE')).toBeNull();
    expect(await balanceOf(chain, payer.address)).toBe(payerBefore);
    expect(await balanceOf(chain, platform)).toBe(platformBefore);
    const failed = await rows<{ status: string }>(
      t.deps.db.orm,
      sql`SELECT status FROM calls WHERE provider_id = ${providerId} AND endpoint_slug = 'fail'`,
    );
    expect(failed).toEqual([{ status: 'provider_error' }]);
  });

  it('one payment header replayed 10× concurrently buys one call and settles once', async () => {
    const payer = await fundedWallet(t, '2');
    const before = await balanceOf(chain, payer.address);
    const url = `${base}/x402/${providerId}/echo`;
    const hitsBefore = provider.hits('/echo');
    const { header } = await signedHeader(payer, await offerOf(url, { city: 'Rome' }));
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => paidCall(url, header, { city: 'Rome' })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses).toEqual(Array(10).fill(200));
    const transactions = new Set(
      answers.map(
        (r) => decodePaymentResponseHeader(r.headers.get('PAYMENT-RESPONSE') as string).transaction,
      ),
    );
    expect(transactions.size).toBe(1);
    const bodies = new Set(await Promise.all(answers.map((r) => r.text())));
    expect(bodies.size).toBe(1);
    expect(provider.hits('/echo') - hitsBefore).toBe(1);
    expect(await balanceOf(chain, payer.address)).toBe(before - 250_000n);
    const mine = (await paymentRows(t)).filter((p) => p.payer === payer.address.toLowerCase());
    expect(mine.map((p) => p.status)).toEqual(['settled']);

    // Later replay: the stored answer and PAYMENT-RESPONSE, not an error, and no second call.
    const again = await paidCall(url, header, { city: 'Rome' });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe([...bodies][0]);
    expect(again.headers.get('PAYMENT-RESPONSE')).toBe(answers[0]?.headers.get('PAYMENT-RESPONSE'));
    expect(provider.hits('/echo') - hitsBefore).toBe(1);
  });

  it('accepts the v1 X-PAYMENT header name', async () => {
    const payer = await fundedWallet(t, '1');
    const before = await balanceOf(chain, payer.address);
    const url = `${base}/x402/${providerId}/echo`;
    const { header } = await signedHeader(payer, await offerOf(url, { city: 'Lima' }));
    const res = await paidCall(url, header, { city: 'Lima' }, 'X-PAYMENT');
    expect(res.status).toBe(200);
    expect(res.headers.get('X-PAYMENT-RESPONSE')).toBeTruthy();
    expect(await balanceOf(chain, payer.address)).toBe(before - 250_000n);
  });

  it('GET /discovery/resources lists every endpoint with the 402 offer', async () => {
    const res = await fetch(`${base}/discovery/resources?type=http&limit=2&offset=0`);
    expect(res.status).toBe(200);
    const listing = await res.json();
    expect(listing).toMatchObject({ x402Version: 2, pagination: { limit: 2, offset: 0, total: 3 } });
    expect(listing.items).toHaveLength(2);
    const echo = listing.items.find((i: { resource: string }) => i.resource.endsWith('/echo'));
    expect(echo).toMatchObject({
      type: 'http',
      x402Version: 2,
      accepts: [{ scheme: 'exact', amount: '250000', payTo: platform }],
      metadata: { input: { method: 'POST', bodyType: 'json' } },
    });
    expect(Number.isNaN(Date.parse(echo.lastUpdated))).toBe(false);
  });
});
