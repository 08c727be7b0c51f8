// Identity-tier and endpoint limits at the boundary, the headers, the 429, what is not counted, and the
// paid path: settled calls promote the tier; a refused execute debits and forwards nothing.
// Runs on in-process counters, or on Redis when REDIS_URL is set (same tests).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/modules/auth/caller.js';
import { balanceCredits, execute, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { probe, rateHeaders, statuses } from './helpers.js';

describe('limits per IP and per endpoint', () => {
  let t: TestApp;
  let server: ProviderServer;
  let providerId: string;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        SVC_RATE_LIMIT_ANONYMOUS: '5',
        SVC_RATE_LIMIT_ACCOUNT: '6',
        SVC_RATE_LIMIT_WALLET_NEW: '4',
        SVC_RATE_LIMIT_WALLET_ESTABLISHED: '8',
        SVC_TRUST_ESTABLISHED_PAYMENTS: '2',
        // Read the counter on every request: the settlement path does not notify this instance.
        SVC_TRUST_TIER_CACHE_SECONDS: '0',
        SVC_RATE_LIMIT_KEYS_CREATE: '2',
        SVC_RATE_LIMIT_KEYS_LIST: '3',
        SVC_RATE_LIMIT_WALLET_BALANCE: '4',
      },
    });
    server = await startProviderServer();
    ({ providerId } = await registerProvider(t, server.url, [{ slug: 'echo', price_usdc: '0.01' }]));
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('lets exactly N requests through and refuses the N+1th with 429, Retry-After and headers', async () => {
    const ip = { remoteAddress: '10.1.0.1' };
    const before = Math.floor(Date.now() / 1000);
    const seen: { limit: number; remaining: number; reset: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await probe(t, ip);
      expect(res.statusCode).toBe(404); // the probe route does not exist; it counts all the same
      seen.push(rateHeaders(res));
    }
    expect(seen.map((h) => h.limit)).toEqual([5, 5, 5, 5, 5]);
    expect(seen.map((h) => h.remaining)).toEqual([4, 3, 2, 1, 0]);
    for (const h of seen) {
      expect(h.reset).toBeGreaterThanOrEqual(before + 59);
      expect(h.reset).toBeLessThanOrEqual(before + 61);
    }

    const refused = await probe(t, ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: {
        code: 'SVC-RATE-001',
        message: expect.stringContaining('5 requests per 60 s'),
        details: { limit: 5, window_seconds: 60, scope: 'ip', retry_after_seconds: expect.any(Number) },
      },
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rateHeaders(refused)).toEqual({ limit: 5, remaining: 0, reset: seen[0]?.reset });
    expect(refused.headers['x-request-id']).toMatch(/^req_/);
  });

  it('keeps other IP addresses apart', async () => {
    expect(await statuses(6, () => probe(t, { remoteAddress: '10.1.0.2' }))).toEqual([
      404, 404, 404, 404, 404, 429,
    ]);
    expect((await probe(t, { remoteAddress: '10.1.0.3' })).statusCode).toBe(404);
  });

  it('counts error responses and puts the headers on them too', async () => {
    const ip = { remoteAddress: '10.1.0.4' };
    // 400 (invalid JSON) on a POST route: the limiter runs before the body is parsed.
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token' },
      payload: '{"email":',
      ...ip,
    });
    expect([400, 401]).toContain(bad.statusCode);
    expect(rateHeaders(bad)).toMatchObject({ limit: 5, remaining: 4 });
    const missing = await probe(t, ip);
    expect(rateHeaders(missing)).toMatchObject({ limit: 5, remaining: 3 });
  });

  it('does not count health checks, docs or operator calls with the admin token', async () => {
    const ip = { remoteAddress: '10.1.0.5' };
    expect(await statuses(5, () => probe(t, ip))).toEqual([404, 404, 404, 404, 404]);
    expect((await probe(t, ip)).statusCode).toBe(429);

    for (const url of [
      '/healthz',
      '/readyz',
      '/docs-json',
      '/docs',
      '/docs/json',
      '/docs/static/swagger-ui.css',
    ]) {
      const res = await t.inject({ method: 'GET', url, ...ip });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-ratelimit-limit'], url).toBeUndefined();
    }
    const admin = await t.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      payload: { email: 'ops@example.com' },
      ...ip,
    });
    expect(admin.statusCode).toBe(201);
    // A wrong admin token is an anonymous caller like any other.
    const wrong = await t.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: { authorization: 'Bearer not-the-admin-token-at-all-xxxx' },
      payload: { email: 'x@example.com' },
      ...ip,
    });
    expect(wrong.statusCode).toBe(429);
  });

  it('counts invalid credentials per IP, so guessing keys earns no fresh budget', async () => {
    const ip = { remoteAddress: '10.1.0.6' };
    let guess = 0;
    const codes = await statuses(6, () =>
      probe(t, { ...ip, headers: { 'x-svc-api-key': `svc_sk_${String(++guess).padStart(32, 'x')}` } }),
    );
    expect(codes).toEqual([404, 404, 404, 404, 404, 429]);
  });

  it('ignores a forged X-Forwarded-For when no proxy is trusted (the default)', async () => {
    let n = 0;
    const codes = await statuses(6, () =>
      probe(t, { remoteAddress: '10.1.0.7', headers: { 'x-forwarded-for': `203.0.113.${++n}` } }),
    );
    expect(codes).toEqual([404, 404, 404, 404, 404, 429]);
  });

  it('applies the endpoint-specific limit on top of the identity limit, per identity', async () => {
    const { accountId } = await t.createAccount();
    const caller: Caller = {
      kind: 'account',
      ip: '10.1.1.1',
      accountId,
      status: 'active',
      credential: 'api_key',
    };
    const limiter = t.app.rateLimiter;
    const create = async () => limiter.check(caller, 'POST /v1/keys');
    const first = await create();
    // Headers report the limit nearest to exhaustion: POST /v1/keys (2) rather than the account (6).
    expect(first).toMatchObject({ allowed: true, reported: { scope: 'endpoint', limit: 2, remaining: 1 } });
    expect(first.identityState).toMatchObject({ scope: 'account', limit: 6, remaining: 5 });
    expect((await create()).allowed).toBe(true);
    const refused = await create();
    expect(refused).toMatchObject({
      allowed: false,
      reported: { scope: 'endpoint', limit: 2, remaining: 0 },
    });
    // The refused request used up nothing of the account budget: 2 counted so far, this is the 3rd.
    const other = await limiter.check(caller, 'GET /v1/keys');
    expect(other).toMatchObject({ allowed: true, identityState: { remaining: 3 } });
    // Another account has its own endpoint budget.
    const second = await t.createAccount();
    expect((await limiter.check({ ...caller, accountId: second.accountId }, 'POST /v1/keys')).allowed).toBe(
      true,
    );
  });

  it('refuses over-limit key creation over HTTP with nothing created', async (ctx) => {
    if (!t.app.hasRoute({ method: 'POST', url: '/v1/keys' })) {
      ctx.skip('POST /v1/keys is not registered yet (keys module)');
    }
    const { apiKey } = await t.createAccount();
    const headers = { 'x-svc-api-key': apiKey };
    const create = (name: string) =>
      t.inject({ method: 'POST', url: '/v1/keys', headers, payload: { name } });
    const first = await create('one');
    expect(first.statusCode).toBe(201);
    expect(rateHeaders(first)).toMatchObject({ limit: 2, remaining: 1 });
    expect((await create('two')).statusCode).toBe(201);
    const refused = await create('three');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('SVC-RATE-001');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(rateHeaders(refused)).toMatchObject({ limit: 2, remaining: 0 });

    const list = await t.inject({ method: 'GET', url: '/v1/keys', headers });
    expect(list.statusCode).toBe(200);
    const names = list.json().data.map((k: { name: string }) => k.name);
    expect(names).not.toContain('three');
    expect(names).toEqual(expect.arrayContaining(['one', 'two']));
    // GET /v1/keys has its own limit (3): this was its first request; the account (6) has 3 counted.
    expect(rateHeaders(list)).toMatchObject({ limit: 3, remaining: 2 });
  });

  it('limits GET /v1/wallet/balance per account', async (ctx) => {
    if (!t.app.hasRoute({ method: 'GET', url: '/v1/wallet/balance' })) {
      ctx.skip('GET /v1/wallet/balance is not registered yet (wallet module)');
    }
    const { apiKey } = await t.createAccount();
    const balance = () =>
      t.inject({ method: 'GET', url: '/v1/wallet/balance', headers: { 'x-svc-api-key': apiKey } });
    expect(await statuses(5, balance)).toEqual([200, 200, 200, 200, 429]);
  });

  it('promotes the account once its paid calls have settled', async () => {
    const { accountId, apiKey } = await t.createAccount();
    await fund(t, accountId, '1.00');
    const first = await execute(t, apiKey, providerId, 'echo', {});
    expect(first.statusCode).toBe(200);
    expect(rateHeaders(first)).toMatchObject({ limit: 6, remaining: 5 });
    expect((await execute(t, apiKey, providerId, 'echo', {})).statusCode).toBe(200);
    // Two settled payments: established (8) > account limit (6); the two calls made still count.
    const next = await probe(t, { headers: { 'x-svc-api-key': apiKey } });
    expect(rateHeaders(next)).toMatchObject({ limit: 8, remaining: 5 });
  });

  it('refuses an over-limit execute before any debit or provider call', async () => {
    const { accountId, apiKey } = await t.createAccount();
    await fund(t, accountId, '1.00');
    for (let i = 0; i < 6; i++) {
      expect((await probe(t, { headers: { 'x-svc-api-key': apiKey } })).statusCode).toBe(404);
    }
    const balanceBefore = await balanceCredits(t, accountId);
    const hitsBefore = server.hits('/echo');

    const refused = await execute(t, apiKey, providerId, 'echo', {});
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('SVC-RATE-001');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    expect(await balanceCredits(t, accountId)).toBe(balanceBefore);
    expect(server.hits('/echo')).toBe(hitsBefore);
    const calls = await t.deps.db.orm.execute(
      sql`SELECT count(*)::int AS n FROM calls WHERE account_id = ${accountId}`,
    );
    expect((calls as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });
});
