// Who a request is counted against: IP (with and without a trusted proxy), unsigned wallet claims, accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { probe, rateHeaders, statuses } from './helpers.js';

const WALLET = `0x${'ab'.repeat(20)}`;

describe('wallet-identified and authenticated callers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        SVC_RATE_LIMIT_ANONYMOUS: '2',
        SVC_RATE_LIMIT_WALLET_NEW: '4',
        SVC_RATE_LIMIT_WALLET_PER_IP: '6',
        SVC_RATE_LIMIT_ACCOUNT: '5',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives an X-Svc-Wallet caller the new-tier limit, apart from the anonymous budget of its IP', async () => {
    const ip = '10.5.0.1';
    expect(await statuses(3, () => probe(t, { remoteAddress: ip }))).toEqual([404, 404, 429]);
    const first = await probe(t, { remoteAddress: ip, headers: { 'x-svc-wallet': WALLET } });
    expect(first.statusCode).toBe(404);
    expect(rateHeaders(first)).toMatchObject({ limit: 4, remaining: 3 });
  });

  it('does not let a forged X-Svc-Wallet from another IP spend the real wallet budget', async () => {
    const wallet = `0x${'cd'.repeat(20)}`;
    const forger = () => probe(t, { remoteAddress: '10.5.0.66', headers: { 'x-svc-wallet': wallet } });
    expect(await statuses(5, forger)).toEqual([404, 404, 404, 404, 429]);
    // The wallet's owner, on its own address, still has its whole budget (the header is case-insensitive).
    const owner = await probe(t, {
      remoteAddress: '10.5.0.2',
      headers: { 'x-svc-wallet': wallet.toUpperCase().replace('0X', '0x') },
    });
    expect(owner.statusCode).toBe(404);
    expect(rateHeaders(owner)).toMatchObject({ limit: 4, remaining: 3 });
  });

  it('caps unsigned wallet claims per IP, so rotating made-up wallets gains nothing', async () => {
    let n = 0;
    const rotate = () =>
      probe(t, {
        remoteAddress: '10.5.0.3',
        headers: { 'x-svc-wallet': `0x${String(++n).padStart(40, '0')}` },
      });
    const codes = await statuses(7, rotate);
    expect(codes).toEqual([404, 404, 404, 404, 404, 404, 429]);
  });

  it('counts an API key caller per account, whatever its IP', async () => {
    const { apiKey } = await t.createAccount();
    let n = 0;
    const call = () => probe(t, { remoteAddress: `10.6.0.${++n}`, headers: { 'x-svc-api-key': apiKey } });
    const codes: number[] = [];
    let last = await call();
    codes.push(last.statusCode);
    expect(rateHeaders(last)).toMatchObject({ limit: 5, remaining: 4 });
    for (let i = 0; i < 5; i++) {
      last = await call();
      codes.push(last.statusCode);
    }
    expect(codes).toEqual([404, 404, 404, 404, 404, 429]);
    expect(last.json().error.details.scope).toBe('account');
    // Bearer form of the same key: same account, same budget.
    const bearer = await probe(t, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(bearer.statusCode).toBe(429);
  });
});
