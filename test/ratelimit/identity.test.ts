// Who a request is counted against: IP (with and without a trusted proxy), unsigned wallet claims, accounts.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectiveLimits } from '../../src/modules/ratelimit/limits.js';
import { TrustTierCache } from '../../src/modules/ratelimit/trust-tier.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { heldReads } from '../helpers/held-reads.js';
import { probe, rateHeaders, sleep, statuses } from './helpers.js';

const WALLET = `0x${'ab'.repeat(20)}`;

describe('wallet-identified and authenticated callers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        SVC_RATE_LIMIT_ANONYMOUS: '2',
        SVC_RATE_LIMIT_WALLET_NEW: '4',
        SVC_RATE_LIMIT_WALLET_ESTABLISHED: '7',
        SVC_RATE_LIMIT_WALLET_TRUSTED: '9',
        SVC_RATE_LIMIT_WALLET_PER_IP: '12',
        SVC_RATE_LIMIT_ACCOUNT: '5',
        SVC_TRUST_ESTABLISHED_PAYMENTS: '2',
        SVC_TRUST_TRUSTED_PAYMENTS: '4',
        SVC_TRUST_TIER_CACHE_SECONDS: '1',
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
    const codes = await statuses(13, rotate);
    expect(codes).toEqual([...Array(12).fill(404), 429]);
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

  it('promotes a wallet and its account through the trust tiers as payments succeed', async () => {
    const { accountId, apiKey } = await t.createAccount();
    const wallet = `0x${'ef'.repeat(20)}`;
    // Fixtures on the counter column: settled paid calls and confirmed deposits raise it in production.
    const setPayments = (n: number) =>
      t.deps.db.orm.execute(sql`UPDATE accounts SET successful_payments = ${n} WHERE id = ${accountId}`);
    await t.deps.db.orm.execute(sql`UPDATE accounts SET wallet_address = ${wallet} WHERE id = ${accountId}`);
    const byWallet = () => probe(t, { remoteAddress: '10.7.0.1', headers: { 'x-svc-wallet': wallet } });
    const byKey = () => probe(t, { headers: { 'x-svc-api-key': apiKey } });

    await setPayments(1);
    expect(rateHeaders(await byWallet())).toMatchObject({ limit: 4, remaining: 3 });
    // Authenticated: the larger of the account limit (5) and its trust-tier limit (new: 4).
    expect(rateHeaders(await byKey())).toMatchObject({ limit: 5, remaining: 4 });

    // The module that raises the counter tells the limiter (the `payments.counted` event); the next request has the new limit and the
    // requests already made in the window still count.
    await setPayments(2);
    t.deps.events.emit('payments.counted', { accountId });
    expect(rateHeaders(await byWallet())).toMatchObject({ limit: 7, remaining: 5 });
    expect(rateHeaders(await byKey())).toMatchObject({ limit: 7, remaining: 5 });

    // The new counter value can be handed over directly (no re-read).
    t.deps.events.emit('payments.counted', { accountId, successfulPayments: 4n });
    expect(rateHeaders(await byWallet())).toMatchObject({ limit: 9, remaining: 6 });
    expect(rateHeaders(await byKey())).toMatchObject({ limit: 9, remaining: 6 });
  });

  it('picks up a raised counter without invalidation within SVC_TRUST_TIER_CACHE_SECONDS', async () => {
    const { accountId, apiKey } = await t.createAccount();
    const byKey = () => probe(t, { headers: { 'x-svc-api-key': apiKey } });
    expect(rateHeaders(await byKey())).toMatchObject({ limit: 5 });
    await t.deps.db.orm.execute(sql`UPDATE accounts SET successful_payments = 1000 WHERE id = ${accountId}`);
    await sleep(1100);
    expect(rateHeaders(await byKey())).toMatchObject({ limit: 9, remaining: 7 });
  });

  it('reports the trust tier and the identity limit in /v1/auth/status without counting twice', async (ctx) => {
    if (!t.app.hasRoute({ method: 'GET', url: '/v1/auth/status' })) {
      ctx.skip('GET /v1/auth/status is not registered yet (auth module)');
    }
    const { accountId, apiKey } = await t.createAccount();
    await t.deps.db.orm.execute(sql`UPDATE accounts SET successful_payments = 2 WHERE id = ${accountId}`);
    t.deps.events.emit('payments.counted', { accountId });
    const first = await probe(t, { headers: { 'x-svc-api-key': apiKey } });
    const status = await t.inject({
      method: 'GET',
      url: '/v1/auth/status',
      headers: { 'x-svc-api-key': apiKey },
    });
    expect(status.statusCode).toBe(200);
    const data = status.json().data;
    expect(data.trust_tier).toBe('established');
    expect(data.rate_limit).toEqual({ limit: 7, remaining: 5, reset: rateHeaders(first).reset });
    expect(rateHeaders(status)).toMatchObject({ limit: 7, remaining: 5 });

    const anonymous = await t.inject({ method: 'GET', url: '/v1/auth/status', remoteAddress: '10.7.0.9' });
    expect(anonymous.json().data).toMatchObject({ trust_tier: null, rate_limit: { limit: 2, remaining: 1 } });
  });
});

describe('trust tier cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        SVC_TRUST_ESTABLISHED_PAYMENTS: '2',
        SVC_TRUST_TRUSTED_PAYMENTS: '4',
        SVC_TRUST_TIER_CACHE_SECONDS: '60',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('does not keep a count read across a `payments.counted` event', async () => {
    const { accountId } = await t.createAccount();
    // The count is read (0) before it moves; the answer arrives after the event that says it moved.
    const db = heldReads(t.deps.db);
    const config = t.deps.config;
    const log = t.app.log;
    const slow = new TrustTierCache(
      { ...t.deps, db: { ...t.deps.db, orm: db.orm } },
      effectiveLimits(config),
      log,
    );
    const tiers = new TrustTierCache(t.deps, effectiveLimits(config), log);
    const before = slow.forAccount(accountId);
    await db.read;
    await t.deps.db.orm.execute(sql`UPDATE accounts SET successful_payments = 4 WHERE id = ${accountId}`);
    slow.invalidate(accountId); // what `payments.counted` does
    db.release();
    expect(await before).toBe('new'); // the request that asked came before the count moved
    // The next one reads it again (no stale entry kept for the 60 s of the cache).
    expect(await slow.forAccount(accountId)).toBe(await tiers.forAccount(accountId));
    expect(await slow.forAccount(accountId)).toBe('trusted');
  });
});
