import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LateWords } from '../../src/modules/discovery/ranking/late-interaction.js';
import {
  isWeakMatch,
  LEAD_FLOOR,
  type MatchEvidence,
  matchEvidence,
  matchQualityOf,
  matchStrength,
  WEAK_MATCH_BELOW,
} from '../../src/modules/discovery/ranking/match-quality.js';
import { buildSearchIndex } from '../../src/modules/discovery/ranking/search-index.js';
import { valueWords } from '../../src/modules/discovery/ranking/text.js';
import type { IndexedEndpoint } from '../../src/modules/discovery/ranking/types.js';
import { loadWordVectors } from '../../src/modules/discovery/ranking/vectors.js';
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

describe('the no-answer model for a query the sentence encoder read', () => {
  const evidence: MatchEvidence = {
    coverage: 0.5,
    uncovered: 0.3,
    looseCoverage: 0.5,
    meaning: 0.5,
    unknown: 0,
    lead: 1,
  };
  const everyWordAnswered: LateWords = { mean: 0.65, low2: 0.5, below: 0 };
  const noWordAnswered: LateWords = { mean: 0.3, low2: 0.1, below: 1 };

  it('without late-interaction rows, the strength decides', () => {
    expect(isWeakMatch(WEAK_MATCH_BELOW - 0.01, evidence)).toBe(true);
    expect(isWeakMatch(WEAK_MATCH_BELOW + 0.01, evidence)).toBe(false);
  });

  it('with them, how well the first result answers each word decides where the strength is low', () => {
    // A paraphrase: few words in common, every word answered in meaning.
    expect(isWeakMatch(0.05, evidence, everyWordAnswered)).toBe(false);
    // Words in common, none of them answered in meaning: the next thing over.
    expect(isWeakMatch(0.2, evidence, noWordAnswered)).toBe(true);
    // A strong word match is not overturned by the rows alone.
    expect(isWeakMatch(0.8, evidence, noWordAnswered)).toBe(false);
  });

  it('never judges a match weaker for answering more of the words, or stronger for answering fewer', () => {
    for (const strength of [0.05, 0.15, 0.3, 0.45])
      for (let below = 0; below <= 1; below += 0.1) {
        const words = { mean: 0.45, low2: 0.25, below };
        const fewer = { ...words, below: Math.min(1, below + 0.1) };
        if (isWeakMatch(strength, evidence, words)) expect(isWeakMatch(strength, evidence, fewer)).toBe(true);
        const better = { ...words, mean: words.mean + 0.05 };
        if (!isWeakMatch(strength, evidence, words))
          expect(isWeakMatch(strength, evidence, better)).toBe(false);
      }
  });

  it("is what meta.match_quality reports, 'none' without a result", () => {
    expect(matchQualityOf(0.6, true)).toBe('weak');
    expect(matchQualityOf(0.05, false)).toBe('good');
    expect(matchQualityOf(0, false)).toBe('none');
    expect(matchQualityOf(0.1)).toBe('weak');
  });
});

describe('the ask a query starts with', () => {
  const endpoint: IndexedEndpoint = {
    providerId: 'aero',
    providerName: 'Aero',
    providerDescription: 'Aviation weather.',
    category: 'data_intelligence',
    providerTags: [],
    slug: 'flight-conditions',
    method: 'GET',
    description: 'Flight conditions at an airport: visibility, ceiling and wind for pilots.',
    tags: ['aviation', 'airport'],
    parameters: {},
    responseSchema: null,
    priceCredits: 1000n,
  };
  const index = buildSearchIndex([endpoint], loadWordVectors());

  it('counts against the match when the endpoint lacks it: "book a flight" is not what a weather report does', () => {
    const booked = matchEvidence(index, 'book a flight from Madrid', 0);
    // At most a trace of credit from a word of similar meaning.
    expect(booked.lead).toBeLessThan(0.05);
    const plain = matchStrength(0.5, { ...booked, lead: 1 });
    expect(matchStrength(0.5, booked)).toBeCloseTo(plain * (LEAD_FLOOR + (1 - LEAD_FLOOR) * booked.lead), 10);
    expect(matchStrength(0.5, booked)).toBeLessThan(plain / 2);
  });

  it('is not judged after a question word, a value or a request word, and counts fully when covered', () => {
    expect(matchEvidence(index, 'how windy is it at the airport', 0).lead).toBe(1);
    expect(matchEvidence(index, 'flight conditions at Madrid airport', 0).lead).toBe(1);
    // A value first (a ticker, a name) is not an ask.
    expect(matchEvidence(index, 'LEMD flight conditions', 0).lead).toBe(1);
    // Nor is a request for information that any endpoint answers, though this one never says "find".
    expect(matchEvidence(index, 'find the visibility at Madrid airport', 0).lead).toBe(1);
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
