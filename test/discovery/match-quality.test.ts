import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEAK_MATCH_BELOW } from '../../src/modules/discovery/ranking/match-quality.js';
import { valueWords } from '../../src/modules/discovery/ranking/text.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { SMALL_CATALOGUE } from './catalogue.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, keysOf } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: DISCOVERY_TEST_ENV });
  for (const p of SMALL_CATALOGUE) await createProvider(t, p);
});
afterAll(async () => {
  await t.close();
});

type Meta = { match_quality?: string; match_strength?: number };

describe('meta.match_quality', () => {
  it('is good when the first result does what was asked, names of places not counting against it', async () => {
    for (const query of ['weather forecast for the next days', 'current weather in Nairobi', 'send an SMS']) {
      const body = await discoverOk(t, { query });
      const meta = body.meta as Meta;
      expect(meta.match_quality, query).toBe('good');
      expect(meta.match_strength).toBeGreaterThanOrEqual(WEAK_MATCH_BELOW);
      expect(meta.match_strength).toBeLessThanOrEqual(1);
    }
  });

  it('is weak (or none) when nothing in the catalogue does what was asked', async () => {
    for (const query of ['start my robot vacuum', 'apply for a mortgage pre-approval']) {
      const body = await discoverOk(t, { query });
      const meta = body.meta as Meta;
      expect(['weak', 'none'], query).toContain(meta.match_quality);
      expect(meta.match_strength).toBeLessThan(WEAK_MATCH_BELOW);
    }
  });

  it('judges the results that passed the filters, not the catalogue', async () => {
    const open = await discoverOk(t, { query: 'send a text message to a phone' });
    expect(keysOf(open)[0]).toBe('courier/send-sms');
    expect((open.meta as Meta).match_quality).toBe('good');
    const filtered = await discoverOk(t, {
      query: 'send a text message to a phone',
      filters: { category: 'blockchain' },
    });
    expect(keysOf(filtered)).not.toContain('courier/send-sms');
    expect(['weak', 'none']).toContain((filtered.meta as Meta).match_quality);
  });

  it('is absent without a query (filters only)', async () => {
    const body = await discoverOk(t, { filters: { category: 'utility' } });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.meta).not.toHaveProperty('match_quality');
    expect(body.meta).not.toHaveProperty('match_strength');
  });

  it('is served the same from the cache', async () => {
    const first = (await discoverOk(t, { query: 'start my robot vacuum' })).meta as Meta;
    const again = (await discoverOk(t, { query: 'start my robot vacuum' })).meta as Meta;
    expect(again.match_quality).toBe(first.match_quality);
    expect(again.match_strength).toBe(first.match_strength);
  });
});

describe('valueWords', () => {
  it('takes names, tickers, numbers and domains as values, not as asks', () => {
    expect([...valueWords('NVDA share price on 1 March at acme.com for Claude')].sort()).toEqual(
      ['1', 'acme', 'claude', 'com', 'march', 'nvda'].sort(),
    );
    expect([...valueWords('Weather forecast')]).toEqual([]);
  });
});
