// Every bad payment is a 402 with a clear reason and changes nothing: no transfer, no reservation, no
// provider call. Bad params cost nothing either (400 before any payment is looked at).

import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Eip3009Authorization } from '../../src/modules/x402/protocol.js';
import { registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { balanceOf, fundedWallet, listen, offerOf, paidCall, paymentRows, signedHeader } from './helpers.js';

let chain: TestChain;
let t: TestApp;
let provider: ProviderServer;
let url: string;
let offer: PaymentRequired;
let platform: string;

beforeAll(async () => {
  chain = await startTestChain();
  provider = await startProviderServer();
  t = await createTestApp({ env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  const base = await listen(t);
  platform = t.deps.chain.platformWallet as string;
  const { providerId } = await registerProvider(t, provider.url, [
    {
      slug: 'echo',
      price_usdc: '0.25',
      parameters: { city: { type: 'string', required: true, description: 'City' } },
    },
  ]);
  url = `${base}/x402/${providerId}/echo`;
  offer = await offerOf(url, { city: 'Oslo' });
}, 180_000);

afterAll(async () => {
  await t?.close();
  await provider?.close();
  await chain?.stop();
});

const BODY = { city: 'Oslo' };

/** Sends `header`, expects 402 with `reason`, and checks that nothing moved or was reserved. */
async function expectRefused(header: string, reason: string, payer?: string) {
  const before = {
    payer: payer ? await balanceOf(chain, payer) : 0n,
    platform: await balanceOf(chain, platform),
    payments: (await paymentRows(t)).length,
    hits: provider.hits('/echo'),
  };
  const res = await paidCall(url, header, BODY);
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(402);
  expect(body.error).toBe(reason);
  expect(typeof body.message).toBe('string');
  expect(res.headers.get('PAYMENT-REQUIRED')).toBeTruthy();
  expect(res.headers.get('PAYMENT-RESPONSE')).toBeNull();
  if (payer) expect(await balanceOf(chain, payer)).toBe(before.payer);
  expect(await balanceOf(chain, platform)).toBe(before.platform);
  expect((await paymentRows(t)).length).toBe(before.payments);
  expect(provider.hits('/echo')).toBe(before.hits);
}

describe('bad x402 payments', () => {
  it('malformed base64 and JSON', async () => {
    await expectRefused('!!!not-base64!!!', 'invalid_payload');
    await expectRefused(Buffer.from('{"x402Version": 2, "accepted":').toString('base64'), 'invalid_payload');
  });

  it('unknown network', async () => {
    const payer = await fundedWallet(t, '1');
    const { header } = await signedHeader(payer, offer, (r) => ({ ...r, network: 'eip155:8453' }));
    await expectRefused(header, 'invalid_network', payer.address);
  });

  it('wrong amount, wrong asset, wrong payTo', async () => {
    const payer = await fundedWallet(t, '1');
    const cheaper = await signedHeader(payer, offer, (r) => ({ ...r, amount: '1' }));
    await expectRefused(
      cheaper.header,
      'invalid_exact_evm_payload_authorization_value_mismatch',
      payer.address,
    );
    const otherToken = await chain.deployToken('Other', 'OTH');
    const asset = await signedHeader(payer, offer, (r) => ({ ...r, asset: otherToken }));
    await expectRefused(asset.header, 'invalid_exact_evm_asset_mismatch', payer.address);
    const thief = privateKeyToAccount(generatePrivateKey()).address;
    const payTo = await signedHeader(payer, offer, (r) => ({ ...r, payTo: thief }));
    await expectRefused(payTo.header, 'invalid_exact_evm_recipient_mismatch', payer.address);
  });

  it('expired and not-yet-valid authorizations', async () => {
    const payer = await fundedWallet(t, '1');
    // The stock client signs validBefore = now + maxTimeoutSeconds.
    const expired = await signedHeader(payer, offer, (r) => ({ ...r, maxTimeoutSeconds: 1 }));
    const payload = expired.payload;
    payload.accepted = offer.accepts[0] as typeof payload.accepted;
    await expectRefused(
      encodePaymentSignatureHeader(payload),
      'invalid_exact_evm_payload_authorization_valid_before',
      payer.address,
    );

    // Not yet valid: signed by hand with validAfter in an hour (the stock client always signs 0).
    const req = offer.accepts[0] as PaymentRequired['accepts'][number];
    const now = Math.floor(Date.now() / 1000);
    const authorization = {
      from: payer.address,
      to: getAddress(req.payTo),
      value: req.amount,
      validAfter: String(now + 3600),
      validBefore: String(now + 7200),
      nonce: `0x${'7'.repeat(64)}` as `0x${string}`,
    };
    const signature = await payer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: getAddress(req.asset) },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        ...authorization,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
      },
    });
    const early = encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: req,
      payload: { authorization, signature },
    });
    await expectRefused(early, 'invalid_exact_evm_payload_authorization_valid_after', payer.address);
  });

  it('bad signature', async () => {
    const payer = await fundedWallet(t, '1');
    const { payload } = await signedHeader(payer, offer);
    const inner = payload.payload as { signature: string };
    // Another valid-looking signature: the same bytes with r changed.
    inner.signature = `0x${inner.signature.slice(2, 10) === '11111111' ? '22222222' : '11111111'}${inner.signature.slice(10)}`;
    await expectRefused(encodePaymentSignatureHeader(payload), 'invalid_exact_evm_signature', payer.address);
  });

  it('payer without funds', async () => {
    const broke = privateKeyToAccount(generatePrivateKey());
    const { header } = await signedHeader(broke, offer);
    await expectRefused(header, 'invalid_exact_evm_insufficient_balance', broke.address);
  });

  it('reused nonce: another signature over a nonce already used', async () => {
    const payer = await fundedWallet(t, '2');
    const first = await signedHeader(payer, offer);
    const paid = await paidCall(url, first.header, BODY);
    expect(paid.status).toBe(200);
    // Same authorization re-signed by the same key for a longer validity: a different signature, same nonce.
    const a = (first.payload.payload as { authorization: Eip3009Authorization }).authorization;
    const req = offer.accepts[0] as PaymentRequired['accepts'][number];
    const authorization = { ...a, validBefore: String(Number(a.validBefore) + 10) };
    const signature = await payer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: getAddress(req.asset) },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: getAddress(authorization.from),
        to: getAddress(authorization.to),
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce,
      },
    });
    const reused = encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: req,
      payload: { authorization, signature },
    });
    await expectRefused(reused, 'invalid_exact_evm_nonce_already_used', payer.address);
  });

  it('bad params: 400 SVC-EXE-003 before the payment is looked at, nothing reserved', async () => {
    const payer = await fundedWallet(t, '1');
    const { header } = await signedHeader(payer, offer);
    const before = await balanceOf(chain, payer.address);
    const rowsBefore = (await paymentRows(t)).length;
    const res = await paidCall(url, header, { town: 'Oslo' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('SVC-EXE-003');
    expect(await balanceOf(chain, payer.address)).toBe(before);
    expect((await paymentRows(t)).length).toBe(rowsBefore);
    // The same payment still buys the call once the params are right.
    const ok = await paidCall(url, header, BODY);
    expect(ok.status).toBe(200);
  });
});
