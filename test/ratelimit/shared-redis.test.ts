// Several instances, one Redis: one global limit. And when Redis is unreachable: fail-open per instance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { probe, rateHeaders, statuses } from './helpers.js';

// Two instances share counters only through Redis, and createTestApp derives the Redis key prefix from
// the PostgreSQL schema they share; on PGlite each app has its own database and prefix.
const sharedRedis = Boolean(process.env.REDIS_URL && process.env.DATABASE_URL);

describe.skipIf(!sharedRedis)('two instances sharing Redis (needs REDIS_URL and DATABASE_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = {
      SVC_RATE_LIMIT_ANONYMOUS: '10',
      SVC_RATE_LIMIT_ACCOUNT: '8',
      SVC_RATE_LIMIT_WALLET_NEW: '4',
    };
    a = await createTestApp({ env });
    b = await createTestApp({ env, ...(a.schema ? { schema: a.schema } : {}) });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('enforces one global limit: N+5 concurrent requests across both, exactly N pass', async () => {
    const ip = { remoteAddress: '10.10.0.1' };
    const sent = await Promise.all(Array.from({ length: 15 }, (_, i) => probe(i % 2 ? a : b, ip)));
    const codes = sent.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 404)).toHaveLength(10);
    expect(codes.filter((c) => c === 429)).toHaveLength(5);
    // Both instances now refuse, and both report the same window.
    const fromA = await probe(a, ip);
    const fromB = await probe(b, ip);
    expect([fromA.statusCode, fromB.statusCode]).toEqual([429, 429]);
    expect(rateHeaders(fromA).reset).toBe(rateHeaders(fromB).reset);
  });

  it('counts an account once whichever instance serves it', async () => {
    const { apiKey } = await a.createAccount();
    const headers = { 'x-svc-api-key': apiKey };
    const sent = await Promise.all(Array.from({ length: 13 }, (_, i) => probe(i % 2 ? a : b, { headers })));
    expect(sent.filter((r) => r.statusCode === 404)).toHaveLength(8);
  });
});

describe('Redis unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Nothing listens on port 1: the client never becomes ready.
    t = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1', SVC_RATE_LIMIT_ANONYMOUS: '3' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps serving and keeps limiting with per-instance counters (fail-open)', async () => {
    expect(t.deps.redis?.status).not.toBe('ready');
    const ip = { remoteAddress: '10.11.0.1' };
    expect(await statuses(4, () => probe(t, ip))).toEqual([404, 404, 404, 429]);
    const health = await t.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
  });
});
