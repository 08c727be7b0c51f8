// Trusted proxies, the end of a window and the multiplier (one app with a 1-second window).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { probe, rateHeaders, sleep, statuses } from './helpers.js';

describe('trusted proxy, window reset and multiplier', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        // 6 x 0.5 = 3 per window: the multiplier scales every limit.
        SVC_RATE_LIMIT_ANONYMOUS: '6',
        SVC_RATE_LIMIT_MULTIPLIER: '0.5',
        SVC_RATE_LIMIT_WINDOW_SECONDS: '2',
        SVC_TRUST_PROXY: '10.9.0.1, 10.8.0.0/16',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts the forwarded client address when the peer is a trusted proxy', async () => {
    const viaProxy = (client: string, proxy = '10.9.0.1') =>
      probe(t, { remoteAddress: proxy, headers: { 'x-forwarded-for': client } });
    expect(await statuses(4, () => viaProxy('198.51.100.7'))).toEqual([404, 404, 404, 429]);
    // Another client behind the same proxy has its own budget; so does one behind a proxy in the CIDR.
    expect((await viaProxy('198.51.100.8')).statusCode).toBe(404);
    expect(rateHeaders(await viaProxy('198.51.100.9', '10.8.3.4'))).toMatchObject({ limit: 3, remaining: 2 });
    // A client cannot choose its address by prepending to the chain: the rightmost untrusted hop counts.
    const spoof = await probe(t, {
      remoteAddress: '10.9.0.1',
      headers: { 'x-forwarded-for': '192.0.2.1, 198.51.100.7' },
    });
    expect(spoof.statusCode).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer that is not one of the trusted proxies', async () => {
    let n = 0;
    const codes = await statuses(4, () =>
      probe(t, { remoteAddress: '10.4.0.2', headers: { 'x-forwarded-for': `203.0.113.${++n}` } }),
    );
    expect(codes).toEqual([404, 404, 404, 429]);
  });

  it('lets requests through again once the window has passed', async () => {
    const ip = { remoteAddress: '10.2.0.1' };
    const first = await probe(t, ip);
    expect(await statuses(3, () => probe(t, ip))).toEqual([404, 404, 429]);
    const refused = await probe(t, ip);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(rateHeaders(refused).reset).toBe(rateHeaders(first).reset);
    await sleep(rateHeaders(first).reset * 1000 - Date.now() + 50);
    const again = await probe(t, ip);
    expect(again.statusCode).toBe(404);
    expect(rateHeaders(again)).toMatchObject({ limit: 3, remaining: 2 });
  });
});
