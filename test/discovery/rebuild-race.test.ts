// A change made on this instance while the index is being rebuilt beside the live one (a bulk import
// elsewhere started the rebuild): the next request sees it, and so does the rebuilt index once it is
// swapped in, although it read the catalogue before the change.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { VERSION_STALE_MS } from '../../src/modules/discovery/catalogue-mirror.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, keysOf } from './helpers.js';

const clock = new ManualClock(new Date('2026-11-27T10:00:00Z'));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: DISCOVERY_TEST_ENV, clock });
  await createProvider(t, {
    id: 'geo',
    endpoints: [{ slug: 'geocode', description: 'Turn a street address into latitude and longitude.' }],
  });
});
afterAll(async () => {
  await t.close();
});

/** A bulk import by another instance: written straight into the database, no event here. */
async function bulkImport(providers: number) {
  await t.deps.db.orm.execute(
    sql`INSERT INTO providers (id, name, description, category, base_url, secret_ciphertext)
        SELECT 'lighthouse-' || g, 'Lighthouse ' || g, 'Lighthouse keeping', 'utility', 'http://127.0.0.1:9', 'x'
        FROM generate_series(1, ${providers}) g`,
  );
  await t.deps.db.orm.execute(
    sql`INSERT INTO endpoints (provider_id, slug, method, description, price_credits)
        SELECT 'lighthouse-' || g, 'beam', 'GET',
               'Report the beam rotation and fog horn status of lighthouse number ' || g || '.', 1000
        FROM generate_series(1, ${providers}) g`,
  );
}

describe('a change on this instance during a rebuild of the index', () => {
  it('is seen by the next request, and kept by the rebuilt index', async () => {
    const units = { query: 'convert a recipe between metric and imperial units' };
    const beams = { query: 'beam rotation of a lighthouse' };
    expect(keysOf(await discoverOk(t, units))).not.toContain('units/convert');
    await bulkImport(3_000);
    clock.advance(VERSION_STALE_MS);
    // This request's look finds 3,000 new providers: too many to add in place, so a new index is built
    // beside the live one while requests go on (this one is answered from the live index).
    expect(keysOf(await discoverOk(t, beams))).toEqual([]);

    await createProvider(t, {
      id: 'units',
      endpoints: [{ slug: 'convert', description: 'Convert quantities between metric and imperial units.' }],
    });
    expect(keysOf(await discoverOk(t, units))[0]).toBe('units/convert');

    // The rebuilt index comes in (all the lighthouses show: the live index got only those of the blocks
    // it read for the change above) and still holds the provider created meanwhile.
    const started = Date.now();
    const lighthouses = async () => (await discoverOk(t, beams)).meta.total_results;
    while ((await lighthouses()) < 3_000 && Date.now() - started < 20_000)
      await new Promise((r) => setTimeout(r, 20));
    expect(await lighthouses()).toBe(3_000);
    expect(keysOf(await discoverOk(t, units))[0]).toBe('units/convert');
    expect((await t.admin('DELETE', '/v1/admin/providers/units')).statusCode).toBe(200);
    expect(keysOf(await discoverOk(t, units))).not.toContain('units/convert');
  }, 60_000);
});
