import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, keysOf, providerBody } from './helpers.js';

const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: DISCOVERY_TEST_ENV, clock });
  await createProvider(t, {
    id: 'geo',
    name: 'Geo',
    endpoints: [{ slug: 'geocode', description: 'Turn a street address into latitude and longitude.' }],
  });
});
afterAll(async () => {
  await t.close();
});

const setUptime = (uptime: number) =>
  t.deps.db.orm.execute(
    sql`INSERT INTO endpoint_stats (provider_id, endpoint_slug, uptime_pct, total_calls)
        VALUES ('geo', 'geocode', ${uptime}, 10)
        ON CONFLICT (provider_id, endpoint_slug) DO UPDATE SET uptime_pct = EXCLUDED.uptime_pct`,
  );

describe('catalogue changes reach discovery at once on this instance', () => {
  it('a created provider is found by the next request, a deleted one is gone', async () => {
    const query = { query: 'convert a recipe between metric and imperial units' };
    expect(keysOf(await discoverOk(t, query))).not.toContain('units/convert');
    await createProvider(t, {
      id: 'units',
      endpoints: [{ slug: 'convert', description: 'Convert quantities between metric and imperial units.' }],
    });
    expect(keysOf(await discoverOk(t, query))[0]).toBe('units/convert');

    const del = await t.admin('DELETE', '/v1/admin/providers/units');
    expect(del.statusCode).toBe(200);
    expect(keysOf(await discoverOk(t, query))).not.toContain('units/convert');
  });

  it('requests in flight during a change never hide it from requests that start after it', async () => {
    const query = { query: 'count the syllables of a poem' };
    const before = Array.from({ length: 10 }, () => discoverOk(t, query));
    await createProvider(t, {
      id: 'poetry',
      endpoints: [{ slug: 'syllables', description: 'Count the syllables in each line of a poem.' }],
    });
    const after = await Promise.all(Array.from({ length: 10 }, () => discoverOk(t, query)));
    await Promise.all(before);
    for (const body of after) expect(keysOf(body)[0]).toBe('poetry/syllables');
  });

  it('a replaced provider is searched by its new texts', async () => {
    const query = { query: 'reverse geocoding from coordinates to an address' };
    const body = providerBody({
      id: 'geo',
      name: 'Geo',
      endpoints: [
        { slug: 'geocode', description: 'Turn a street address into latitude and longitude.' },
        { slug: 'reverse', description: 'Reverse geocoding: coordinates to the nearest street address.' },
      ],
    });
    const { provider_id: _id, ...replacement } = body;
    const res = await t.admin('PUT', '/v1/admin/providers/geo', replacement);
    expect(res.statusCode).toBe(200);
    expect(keysOf(await discoverOk(t, query))[0]).toBe('geo/reverse');
  });

  it('a change written by another instance (no event here) is picked up within the version check', async () => {
    const query = { query: 'shorten a long link' };
    expect(keysOf(await discoverOk(t, query))).not.toContain('other/shorten');
    // Another instance's write: straight into the database, so this instance gets no event.
    await t.deps.db.orm.execute(
      sql`INSERT INTO providers (id, name, description, category, base_url, secret_ciphertext, updated_at)
          VALUES ('other', 'Other', 'Links', 'utility', 'http://127.0.0.1:9', 'x', now() + interval '1 second')`,
    );
    await t.deps.db.orm.execute(
      sql`INSERT INTO endpoints (provider_id, slug, method, description, price_credits)
          VALUES ('other', 'shorten', 'POST', 'Shorten a long URL into a short link.', 1000)`,
    );
    clock.advance(6_000);
    expect(keysOf(await discoverOk(t, query))).toContain('other/shorten');
  });
});

describe('caches (SPEC.md 8.4) and their bypass', () => {
  it('quality metrics are cached for a minute, then refreshed', async () => {
    const query = { query: 'street address to latitude longitude' };
    await setUptime(97);
    clock.advance(61_000);
    const first = await discoverOk(t, query);
    expect(first.results.find((r) => r.endpoint_slug === 'geocode')?.quality.uptime_pct).toBe(97);

    await setUptime(50);
    const cached = await discoverOk(t, query);
    expect(cached.results.find((r) => r.endpoint_slug === 'geocode')?.quality.uptime_pct).toBe(97);
    // Filters see the same cached metrics.
    const filtered = await discoverOk(t, { ...query, filters: { min_uptime_pct: 90 } });
    expect(keysOf(filtered)).toContain('geo/geocode');

    clock.advance(61_000);
    const fresh = await discoverOk(t, query);
    expect(fresh.results.find((r) => r.endpoint_slug === 'geocode')?.quality.uptime_pct).toBe(50);
  });

  it('Cache-Control: no-cache from an authenticated caller bypasses the caches; from anyone else it does not', async () => {
    const query = { query: 'street address to latitude longitude' };
    await setUptime(80);
    clock.advance(61_000);
    await discoverOk(t, query);
    await setUptime(60);

    const anonymous = await discoverOk(t, query, { 'cache-control': 'no-cache' });
    expect(anonymous.results.find((r) => r.endpoint_slug === 'geocode')?.quality.uptime_pct).toBe(80);

    const { apiKey } = await t.createAccount();
    const withKey = { 'x-svc-api-key': apiKey };
    const authedCached = await discoverOk(t, query, withKey);
    expect(authedCached.results.find((r) => r.endpoint_slug === 'geocode')?.quality.uptime_pct).toBe(80);
    const bypass = await discoverOk(t, query, { ...withKey, 'cache-control': 'no-cache' });
    expect(bypass.results.find((r) => r.endpoint_slug === 'geocode')?.quality.uptime_pct).toBe(60);
  });
});
