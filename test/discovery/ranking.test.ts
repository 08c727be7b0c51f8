import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { SMALL_CATALOGUE } from './catalogue.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, keysOf } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: DISCOVERY_TEST_ENV });
  for (const p of SMALL_CATALOGUE) await createProvider(t, p);
  // Two twins that differ only in price, and two that differ only in measured quality.
  const twin = 'Convert a PDF document into plain text, keeping paragraphs.';
  const same = { name: 'Docs', description: 'Document tools.' };
  await createProvider(t, {
    id: 'pdf-cheap',
    ...same,
    endpoints: [{ slug: 'extract', description: twin, price: '0.001' }],
  });
  await createProvider(t, {
    id: 'pdf-dear',
    ...same,
    endpoints: [{ slug: 'extract', description: twin, price: '0.002' }],
  });
  const audio = 'Transcribe an audio recording into a text transcript.';
  const voice = { name: 'Voice', description: 'Speech tools.' };
  await createProvider(t, { id: 'audio-flaky', ...voice, endpoints: [{ slug: 'stt', description: audio }] });
  await createProvider(t, { id: 'audio-solid', ...voice, endpoints: [{ slug: 'stt', description: audio }] });
  await t.deps.db.orm.execute(
    sql`INSERT INTO endpoint_stats (provider_id, endpoint_slug, uptime_pct, avg_latency_ms, error_rate_pct, total_calls)
        VALUES ('audio-flaky', 'stt', 91, 900, 8, 5000), ('audio-solid', 'stt', 99.9, 300, 0.2, 5000)`,
  );
});
afterAll(async () => {
  await t.close();
});

const top = async (query: string) => keysOf(await discoverOk(t, { query }))[0];

describe('ranking rules', () => {
  it('cheaper wins between two otherwise identical endpoints', async () => {
    const body = await discoverOk(t, { query: 'pdf to text' });
    expect(keysOf(body).slice(0, 2)).toEqual(['pdf-cheap/extract', 'pdf-dear/extract']);
    expect(body.results[0]?.relevance_score).toBe(body.results[1]?.relevance_score);
  });

  it('better quality (uptime, errors, latency) ranks higher at equal text', async () => {
    const body = await discoverOk(t, { query: 'speech to text transcription' });
    expect(keysOf(body).slice(0, 2)).toEqual(['audio-solid/stt', 'audio-flaky/stt']);
    expect(body.results[1]?.quality).toEqual({
      uptime_pct: 91,
      avg_latency_ms: 900,
      error_rate_pct: 8,
      total_calls: 5000,
    });
  });

  it('filters-only requests rank by quality, usage and price', async () => {
    const body = await discoverOk(t, { filters: { tags: [] as string[], category: 'utility' }, limit: 50 });
    const keys = keysOf(body);
    expect(keys.indexOf('audio-solid/stt')).toBeLessThan(keys.indexOf('audio-flaky/stt'));
    expect(keys.indexOf('pdf-cheap/extract')).toBeLessThan(keys.indexOf('pdf-dear/extract'));
    expect(body.results.every((r) => r.relevance_score === 1)).toBe(true);
  });

  it('min_uptime_pct is an inclusive bound on measured uptime', async () => {
    const at = await discoverOk(t, { query: 'transcribe audio', filters: { min_uptime_pct: 91 } });
    expect(keysOf(at)).toContain('audio-flaky/stt');
    const above = await discoverOk(t, { query: 'transcribe audio', filters: { min_uptime_pct: 91.5 } });
    expect(keysOf(above)).toContain('audio-solid/stt');
    expect(keysOf(above)).not.toContain('audio-flaky/stt');
  });
});

describe('matching by meaning', () => {
  it.each([
    ['exact words', 'translate text into another language', 'lingua/translate'],
    ['paraphrase', 'what will the weather be like next week', 'skycast/outlook'],
    ['synonym', 'make a picture from a description', 'pixelgen/generate'],
    ['synonym', 'how hot is it outside in Madrid right now', 'skycast/conditions'],
    ['typo', 'transalte a sentense', 'lingua/translate'],
    ['typo', 'wether forcast', 'skycast/outlook'],
    ['short', 'sms', 'courier/send-sms'],
    ['short', 'uuid', 'toolbox/uuid'],
    [
      'long',
      'I am writing a small script and I need to mail a receipt with a file attached to each customer',
      'courier/send-email',
    ],
    [
      'long',
      'our dashboard should show how many tokens a crypto wallet holds on ethereum',
      'chainscan/balance',
    ],
  ])('%s: "%s" finds %s first', async (_kind, query, expected) => {
    expect(await top(query)).toBe(expected);
  });

  it('a misspelt word the catalogue never uses is corrected through general English', async () => {
    const typo = await discoverOk(t, { query: 'is it freezng outside' });
    const right = await discoverOk(t, { query: 'is it freezing outside' });
    expect(keysOf(typo)[0]).toBe('skycast/conditions');
    expect(keysOf(right)[0]).toBe('skycast/conditions');
    // The offline ranking reads the corrected word; the sentence encoder sees the misspelling, so the
    // fused scores differ a little.
    expect(typo.results[0]?.relevance_score).toBeGreaterThan(0.6 * (right.results[0]?.relevance_score ?? 0));
  });

  it('a query nothing answers gets low relevance scores', async () => {
    const body = await discoverOk(t, { query: 'book a table at an Italian restaurant for tonight' });
    const best = body.results[0]?.relevance_score ?? 0;
    const good = await discoverOk(t, { query: 'send a text message to a phone' });
    expect(best).toBeLessThan(0.45);
    expect(good.results[0]?.relevance_score).toBeGreaterThan(0.6);
  });

  it('gibberish matches nothing', async () => {
    const body = await discoverOk(t, { query: 'qwxz blorft zzyzx' });
    expect(body.results).toEqual([]);
    expect(body.meta.total_results).toBe(0);
  });
});

describe('small catalogues', () => {
  it('a word most endpoints share still scores lexically when the catalogue is small', async () => {
    const t2 = await createTestApp({ env: DISCOVERY_TEST_ENV });
    try {
      for (const [id, description] of [
        ['a', 'Generate random UUID identifiers.'],
        ['b', 'Generate a QR code image.'],
        ['c', 'Generate secure random passwords.'],
      ] as const) {
        await createProvider(t2, { id, name: 'Tools', endpoints: [{ slug: 'run', description }] });
      }
      const body = await discoverOk(t2, { query: 'generate a uuid' });
      expect(keysOf(body)[0]).toBe('a/run');
      expect(body.results[0]?.relevance_score).toBeGreaterThan(0.6);
    } finally {
      await t2.close();
    }
  });

  it('SHA-256 in a description matches a query for sha256', async () => {
    const t2 = await createTestApp({ env: DISCOVERY_TEST_ENV });
    try {
      await createProvider(t2, {
        id: 'digest',
        endpoints: [{ slug: 'compute', description: 'Compute the SHA-256 digest of a text.' }],
      });
      await createProvider(t2, {
        id: 'other',
        endpoints: [{ slug: 'compute', description: 'Compute the word count of a text.' }],
      });
      expect(keysOf(await discoverOk(t2, { query: 'sha256 of my text' }))[0]).toBe('digest/compute');
    } finally {
      await t2.close();
    }
  });
});

describe('filters narrow the catalogue before matching (twentieth round)', () => {
  it('keeps a weaker match that passes them, which the best match they remove would have cut off', async () => {
    // The dear endpoint says every word asked; the cheap one says only "now" itself, its provider the rest.
    await createProvider(t, {
      id: 'gaspro',
      name: 'GasPro',
      description: 'Ethereum gas oracle.',
      tags: ['gas', 'ethereum'],
      endpoints: [
        {
          slug: 'eth-gas-now',
          description: 'ETH gas price now: the gas base fee and tip on Ethereum.',
          price: '0.05',
        },
      ],
    });
    await createProvider(t, {
      id: 'gasgauge',
      name: 'GasGauge',
      description: 'Ethereum gas oracle.',
      tags: ['gas', 'ethereum', 'gwei'],
      endpoints: [
        {
          slug: 'now',
          description: 'Current base fee and priority fee suggestions (slow, standard, fast) in gwei.',
          price: '0.0001',
        },
      ],
    });
    const query = 'eth gas now';
    expect(keysOf(await discoverOk(t, { query }))[0]).toBe('gaspro/eth-gas-now');
    const cheap = await discoverOk(t, { query, filters: { max_price_per_call: 0.001 } });
    expect(keysOf(cheap)[0]).toBe('gasgauge/now');
    // Asked again, from the matches cached for these filters: the same answer.
    expect(keysOf(await discoverOk(t, { query, filters: { max_price_per_call: 0.001 } }))).toEqual(
      keysOf(cheap),
    );
  });
});
