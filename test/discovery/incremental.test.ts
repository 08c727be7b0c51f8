// The discovery index follows catalogue changes one provider at a time: an index updated provider by
// provider ranks like a fresh build of the same catalogue, and changes made through one instance (or
// straight in the database, as another instance would) reach another instance's discovery within a
// second of its clock, without a rebuild of the whole index.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { usdcToCredits } from '../../src/lib/money.js';
import { VERSION_STALE_MS } from '../../src/modules/discovery/catalogue-mirror.js';
import { scoreQuery } from '../../src/modules/discovery/ranking/query.js';
import {
  buildSearchIndex,
  replaceProviderEndpoints,
  type SearchIndex,
} from '../../src/modules/discovery/ranking/search-index.js';
import type { IndexedEndpoint } from '../../src/modules/discovery/ranking/types.js';
import { loadWordVectors } from '../../src/modules/discovery/ranking/vectors.js';
import { catalogDigests, providerVersions, readProviders } from '../../src/modules/discovery/repo.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { SMALL_CATALOGUE } from './catalogue.js';
import {
  createProvider,
  DISCOVERY_TEST_ENV,
  discoverOk,
  keysOf,
  type ProviderSpec,
  providerBody,
} from './helpers.js';

function endpointsOf(p: ProviderSpec): IndexedEndpoint[] {
  const body = providerBody(p);
  return body.endpoints.map((e) => ({
    providerId: body.provider_id,
    providerName: body.name,
    providerDescription: body.description,
    category: body.category,
    providerTags: body.tags,
    slug: e.slug,
    method: e.method,
    description: e.description,
    tags: e.tags,
    parameters: e.parameters,
    responseSchema: null,
    priceCredits: usdcToCredits(e.pricing.price_per_call_usdc),
  }));
}

const QUERIES = [
  'weather forecast for the next days',
  'translate a sentence into German',
  'send a text message to a phone',
  'current temperature in a city',
  'convert a PDF invoice',
];

const ranking = (index: SearchIndex, query: string) =>
  scoreQuery(index, query).map((h) => ({
    key: `${index.endpoints[h.index]?.providerId}/${index.endpoints[h.index]?.slug}`,
    relevance: h.relevance,
  }));

describe('the index updated one provider at a time', () => {
  const vectors = loadWordVectors();
  const junk: ProviderSpec = {
    id: 'junk',
    endpoints: [
      { slug: 'forecast', description: 'Weather forecast scraped from a rain gauge.' },
      { slug: 'sms', description: 'Text message relay.' },
    ],
  };

  it('ranks its top results like a fresh build of the same catalogue, and reuses the slots it frees', () => {
    const all = SMALL_CATALOGUE.flatMap(endpointsOf);
    const full = buildSearchIndex(all, vectors);
    const [first, ...rest] = SMALL_CATALOGUE as [ProviderSpec, ...ProviderSpec[]];
    const index = buildSearchIndex(endpointsOf(first), vectors);
    replaceProviderEndpoints(index, 'junk', endpointsOf(junk));
    for (const p of rest) replaceProviderEndpoints(index, p.id, endpointsOf(p));
    expect(ranking(index, 'weather forecast').map((r) => r.key)).toContain('junk/forecast');
    // A provider changed, then changed back; the junk provider removed.
    const changed = { ...first, endpoints: [{ slug: 'other', description: 'Stock quotes.' }] };
    replaceProviderEndpoints(index, first.id, endpointsOf(changed));
    expect(ranking(index, 'stock quotes')[0]?.key).toBe(`${first.id}/other`);
    replaceProviderEndpoints(index, first.id, endpointsOf(first));
    replaceProviderEndpoints(index, 'junk', []);

    expect(index.live).toBe(all.length);
    // Freed slots are reused: the slot table never grew past the most endpoints ever held at once.
    expect(index.endpoints.length).toBeLessThanOrEqual(all.length + junk.endpoints.length + 1);
    // Endpoint mean vectors keep the IDF of the moment they were computed (this index grew from 2 to 9
    // endpoints, far more drift than the service allows before it rebuilds): the order of the top
    // results is the same, relevance close; a faint match near the floor may differ.
    for (const query of QUERIES) {
      const fresh = ranking(full, query).slice(0, 3);
      const updated = ranking(index, query).slice(0, 3);
      expect(
        updated.map((r) => r.key),
        query,
      ).toEqual(fresh.map((r) => r.key));
      updated.forEach((r, i) => {
        expect(Math.abs(r.relevance - (fresh[i]?.relevance ?? 0))).toBeLessThan(0.05);
      });
      expect(updated.map((r) => r.key)).not.toContain('junk/forecast');
    }
  });
});

const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
let a: TestApp;
beforeAll(async () => {
  a = await createTestApp({ env: DISCOVERY_TEST_ENV, clock });
  for (const p of SMALL_CATALOGUE) await createProvider(a, p);
});
afterAll(async () => {
  await a.close();
});

const writtenElsewhere = async (statement: ReturnType<typeof sql>) => {
  await a.deps.db.orm.execute(statement);
};

describe('changes written by another instance (straight into the database: no event here)', () => {
  it('an added, replaced and removed provider show within a second of the clock', async () => {
    const query = { query: 'measure the loudness of an audio clip' };
    await discoverOk(a, query);
    await writtenElsewhere(
      sql`INSERT INTO providers (id, name, description, category, base_url, secret_ciphertext, updated_at)
          VALUES ('decibel', 'Decibel', 'Audio tools', 'utility', 'http://127.0.0.1:9', 'x',
                  now() + interval '1 second')`,
    );
    await writtenElsewhere(
      sql`INSERT INTO endpoints (provider_id, slug, method, description, price_credits)
          VALUES ('decibel', 'loudness', 'POST', 'Measure the loudness of an audio clip in LUFS.', 1000)`,
    );
    clock.advance(VERSION_STALE_MS);
    expect(keysOf(await discoverOk(a, query))[0]).toBe('decibel/loudness');

    // Replaced: new texts, and the version (update time) moves.
    await writtenElsewhere(
      sql`UPDATE endpoints SET slug = 'tempo', description = 'Detect the tempo of a song in beats per minute.'
          WHERE provider_id = 'decibel'`,
    );
    await writtenElsewhere(
      sql`UPDATE providers SET updated_at = now() + interval '2 seconds' WHERE id = 'decibel'`,
    );
    clock.advance(VERSION_STALE_MS);
    const tempo = await discoverOk(a, { query: 'tempo of a song in beats per minute' });
    expect(keysOf(tempo)[0]).toBe('decibel/tempo');
    expect(keysOf(await discoverOk(a, query))).not.toContain('decibel/loudness');

    await writtenElsewhere(sql`DELETE FROM providers WHERE id = 'decibel'`);
    clock.advance(VERSION_STALE_MS);
    expect(keysOf(await discoverOk(a, { query: 'tempo of a song in beats per minute' }))).not.toContain(
      'decibel/tempo',
    );
    // The rest of the catalogue is still there.
    expect(keysOf(await discoverOk(a, { query: 'weather forecast for the next days' }))).toContain(
      'skycast/outlook',
    );
  });

  it('a change alters its own block digest only, and reading that block finds it', async () => {
    const db = a.deps.db.orm;
    const before = await catalogDigests(db);
    await writtenElsewhere(
      sql`UPDATE providers SET updated_at = updated_at + interval '3 seconds' WHERE id = 'skycast'`,
    );
    const after = await catalogDigests(db);
    expect(after.providers).toBe(before.providers);
    const changed = [...after.blocks].filter(([b, digest]) => before.blocks.get(b) !== digest);
    expect(changed).toHaveLength(1);
    const all = await providerVersions(db);
    const read = await providerVersions(
      db,
      changed.map(([b]) => b),
    );
    expect(read.get('skycast')).toEqual(all.get('skycast'));
    // The block's providers, not the catalogue's.
    expect(read.size).toBeLessThan(all.size);
    for (const v of read.values()) expect(v.block).toBe(changed[0]?.[0]);
    // Providers read by id come with the same versions, whatever their block, and with their endpoints.
    const other = [...all].find(([, v]) => v.block !== changed[0]?.[0])?.[0] as string;
    const named = await readProviders(db, ['skycast', other, 'no-such-provider']);
    expect(named.versions).toEqual(new Map([...all].filter(([id]) => id === 'skycast' || id === other)));
    expect(new Set(named.endpoints.map((e) => e.providerId))).toEqual(new Set(['skycast', other]));
  });

  it('a provider pending review is not discoverable until it is active', async () => {
    await writtenElsewhere(
      sql`INSERT INTO providers (id, name, description, category, base_url, secret_ciphertext, status)
          VALUES ('kite', 'Kite', 'Kites', 'utility', 'http://127.0.0.1:9', 'x', 'pending_review')`,
    );
    await writtenElsewhere(
      sql`INSERT INTO endpoints (provider_id, slug, method, description, price_credits)
          VALUES ('kite', 'wind', 'GET', 'Tell whether the wind is right for flying a kite.', 1000)`,
    );
    const query = { query: 'is the wind right for flying a kite' };
    clock.advance(VERSION_STALE_MS);
    expect(keysOf(await discoverOk(a, query))).not.toContain('kite/wind');
    // Read by id, it has a version (its status is part of it) and no endpoints to index.
    const pending = await readProviders(a.deps.db.orm, ['kite']);
    expect(pending.versions.get('kite')?.version).toMatch(/ pending_review$/);
    expect(pending.endpoints).toEqual([]);
    await writtenElsewhere(sql`UPDATE providers SET status = 'active' WHERE id = 'kite'`);
    clock.advance(VERSION_STALE_MS);
    expect(keysOf(await discoverOk(a, query))[0]).toBe('kite/wind');
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a second instance sharing the database (PostgreSQL)', () => {
  let b: TestApp;
  beforeAll(async () => {
    b = await createTestApp({ env: DISCOVERY_TEST_ENV, clock, schema: a.schema });
  });
  afterAll(async () => {
    await b.close();
  });

  it('sees providers added, replaced and removed through the first within a second', async () => {
    const query = { query: 'count the words of a document' };
    expect(keysOf(await discoverOk(b, query))).not.toContain('words/count');
    await createProvider(a, {
      id: 'words',
      endpoints: [{ slug: 'count', description: 'Count the words and characters of a document.' }],
    });
    // Served at once from the index it has; the change arrives with the next look at the database.
    await discoverOk(b, query);
    clock.advance(VERSION_STALE_MS);
    expect(keysOf(await discoverOk(b, query))[0]).toBe('words/count');

    const { provider_id: _id, ...replacement } = providerBody({
      id: 'words',
      endpoints: [{ slug: 'syllables', description: 'Count the syllables of each line of a poem.' }],
    });
    expect((await a.admin('PUT', '/v1/admin/providers/words', replacement)).statusCode).toBe(200);
    clock.advance(VERSION_STALE_MS);
    expect(keysOf(await discoverOk(b, { query: 'syllables of a poem' }))[0]).toBe('words/syllables');
    expect(keysOf(await discoverOk(b, query))).not.toContain('words/count');

    expect((await a.admin('DELETE', '/v1/admin/providers/words')).statusCode).toBe(200);
    clock.advance(VERSION_STALE_MS);
    expect(keysOf(await discoverOk(b, { query: 'syllables of a poem' }))).not.toContain('words/syllables');
  });
});

describe.skipIf(!(process.env.DATABASE_URL && process.env.REDIS_URL))(
  'a second instance told of changes through Redis (PostgreSQL and Redis)',
  () => {
    let b: TestApp;
    beforeAll(async () => {
      b = await createTestApp({ env: DISCOVERY_TEST_ENV, clock, schema: a.schema });
    });
    afterAll(async () => {
      await b.close();
    });

    /** B's result keys once `done` holds for them, or after `ms` of real time (the test clock stands still). */
    async function keysOnB(query: { query: string }, done: (keys: string[]) => boolean, ms = 5_000) {
      const started = Date.now();
      for (;;) {
        const keys = keysOf(await discoverOk(b, query));
        if (done(keys) || Date.now() - started > ms) return keys;
        await new Promise((r) => setTimeout(r, 10));
      }
    }

    it('applies a change relayed from the first without waiting for its own look at the database', async () => {
      const query = { query: 'translate morse code into text' };
      await discoverOk(b, query);
      await createProvider(a, {
        id: 'morse',
        endpoints: [{ slug: 'decode', description: 'Translate Morse code into plain text.' }],
      });
      // The clock stands still: B's version checks never come due, only the relayed event can tell it.
      const added = await keysOnB(query, (keys) => keys[0] === 'morse/decode');
      expect(added[0]).toBe('morse/decode');
      expect((await a.admin('DELETE', '/v1/admin/providers/morse')).statusCode).toBe(200);
      const removed = await keysOnB(query, (keys) => !keys.includes('morse/decode'));
      expect(removed).not.toContain('morse/decode');
    });
  },
);
