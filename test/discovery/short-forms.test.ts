// A short form the catalogue lacks is matched as the words it stands for ("bank hols" -> "bank holidays",
// ranking step 0 in docs/discovery.md); one the catalogue uses, or one inside a value, is left as typed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse, matchQuery } from '../../src/modules/discovery/ranking/query.js';
import { buildSearchIndex } from '../../src/modules/discovery/ranking/search-index.js';
import { loadWordVectors } from '../../src/modules/discovery/ranking/vectors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, indexedEndpoint, keysOf } from './helpers.js';

const vectors = loadWordVectors();
const asked = (descriptions: string[], query: string) =>
  analyse(
    buildSearchIndex(
      descriptions.map((description, i) => indexedEndpoint(`e${i}`, { description })),
      vectors,
    ),
    query,
  ).map((w) => w.word);

describe('short forms as the ranking reads them', () => {
  it('spells out a short form the catalogue does not use', () => {
    const words = asked(
      ['Public holidays of a country for a year.', 'Balance of a bank account.'],
      'uk bank hols 2025',
    );
    expect(words).toContain('holidays');
    expect(words).not.toContain('hols');
  });

  it('keeps a short form the catalogue itself uses', () => {
    const words = asked(
      ['Time zone (tz) name of a coordinate.', 'Weather at a coordinate.'],
      'tz for a point',
    );
    expect(words).toContain('tz');
    expect(words).not.toContain('timezone');
  });

  it('leaves a short form inside a value alone', () => {
    const words = asked(
      ['Describe a picture in one sentence.'],
      'alt text for https://img.example.com/a.jpg',
    );
    expect(words).not.toContain('image');
  });
});

describe('a short form in a query, through the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: DISCOVERY_TEST_ENV });
    await createProvider(t, {
      id: 'calendarium',
      endpoints: [
        {
          slug: 'holidays',
          method: 'GET',
          description: 'Public holidays of a country (UK, US, …) for a given year.',
        },
      ],
    });
    await createProvider(t, {
      id: 'bankwise',
      endpoints: [
        { slug: 'balance', method: 'GET', description: 'Current balance of a bank account.' },
        { slug: 'rates', method: 'GET', description: 'Bank of England base rate history by year.' },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('"uk bank hols 2025" finds the public holidays first', async () => {
    expect(keysOf(await discoverOk(t, { query: 'uk bank hols 2025' }))[0]).toBe('calendarium/holidays');
  });
});

describe('terms of the trade in an endpoint (sixteenth round)', () => {
  const index = buildSearchIndex(
    [
      indexedEndpoint('bars', { description: 'Daily OHLCV bars for a ticker.' }),
      indexedEndpoint('summary', { description: 'Daily price summary for a ticker: last trade and change.' }),
    ],
    vectors,
  );
  const best = (query: string) => {
    const hits = matchQuery(index, query);
    const top = [...hits.slots].map((slot, k) => [slot, hits.relevance[k] as number] as const);
    top.sort((a, b) => b[1] - a[1]);
    return index.endpoints[top[0]?.[0] as number]?.slug;
  };

  it('are indexed with the words they stand for', () => {
    expect(best('daily open high low close volume for MSFT')).toBe('bars');
  });

  it('are matched as those words in a query when the catalogue spells them out', () => {
    const words = asked(['Speech recognition for recorded calls.', 'Weather now.'], 'asr for a call');
    expect(words).toEqual(expect.arrayContaining(['automatic', 'speech', 'recognition']));
  });

  it('"mt" is read in an endpoint, not in a query, where it is as often a mountain', () => {
    expect(asked(['Machine translation of short texts.', 'Weather now.'], 'weather on mt fuji')).toContain(
      'mt',
    );
  });
});
