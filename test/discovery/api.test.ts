import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { SMALL_CATALOGUE } from './catalogue.js';
import { createProvider, DISCOVERY_TEST_ENV, discover, discoverOk, keysOf } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: DISCOVERY_TEST_ENV });
  for (const p of SMALL_CATALOGUE) await createProvider(t, p);
});
afterAll(async () => {
  await t.close();
});

const errorShape = (code: string) => ({
  error: { code, message: expect.any(String), details: expect.any(Object) },
});

describe('POST /v1/discover: request errors', () => {
  it.each([
    ['no body fields', {}],
    ['empty query', { query: '' }],
    ['whitespace query', { query: '   \n ' }],
    ['empty filters', { filters: {} }],
    ['empty query and empty filters', { query: ' ', filters: {} }],
    ['only an empty tag list', { filters: { tags: [] } }],
  ])('%s is 400 SVC-DSC-001', async (_name, payload) => {
    const res = await discover(t, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'SVC-DSC-001', message: expect.any(String), details: {} } });
  });

  it.each([
    ['unknown category', { category: 'weather' }, 'filters.category'],
    ['category of the wrong type', { category: 3 }, 'filters.category'],
    ['negative price', { max_price_per_call: -0.01 }, 'filters.max_price_per_call'],
    ['price as a string', { max_price_per_call: '0.01' }, 'filters.max_price_per_call'],
    ['absurd price', { max_price_per_call: 1e300 }, 'filters.max_price_per_call'],
    ['uptime above 100', { min_uptime_pct: 100.5 }, 'filters.min_uptime_pct'],
    ['uptime below 0', { min_uptime_pct: -1 }, 'filters.min_uptime_pct'],
    ['unknown method', { method: 'FETCH' }, 'filters.method'],
    ['tags not an array', { tags: 'weather' }, 'filters.tags'],
    ['non-string tag', { tags: ['weather', 5] }, 'filters.tags.1'],
    ['unknown filter key', { colour: 'blue' }, 'filters.colour'],
  ])('%s is 400 SVC-DSC-002 naming the filter', async (_name, filters, path) => {
    const res = await discover(t, { query: 'weather', filters });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'SVC-DSC-002',
        message: expect.any(String),
        details: { errors: expect.arrayContaining([{ path, message: expect.any(String) }]) },
      },
    });
  });

  it('filters that are not an object are SVC-DSC-002', async () => {
    const res = await discover(t, { query: 'weather', filters: ['utility'] });
    expect(res.json()).toMatchObject(errorShape('SVC-DSC-002'));
  });

  it.each([
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 51', { limit: 51 }, 'limit'],
    ['fractional limit', { limit: 2.5 }, 'limit'],
    ['limit as a string', { limit: '5' }, 'limit'],
    ['query not a string', { query: 42 }, 'query'],
    ['unknown body field', { query: 'weather', sort: 'price' }, 'sort'],
  ])('%s is 400 SVC-VAL-001', async (_name, payload, path) => {
    const res = await discover(t, { query: 'weather', ...payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'SVC-VAL-001',
        message: expect.any(String),
        details: { errors: expect.arrayContaining([{ path, message: expect.any(String) }]) },
      },
    });
  });
});

describe('POST /v1/discover: response', () => {
  it('returns items exactly as SPEC.md 2.5 with meta, bare (no envelope)', async () => {
    const res = await discover(t, { query: 'current weather in a city' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['meta', 'results']);
    expect(body.meta).toEqual({
      request_id: res.headers['x-request-id'],
      total_results: expect.any(Number),
      query_time_ms: expect.any(Number),
      match_quality: 'good',
      match_strength: expect.any(Number),
    });
    expect(body.results[0]).toEqual({
      provider_id: 'skycast',
      provider_name: 'SkyCast',
      endpoint_slug: 'conditions',
      description: 'Current weather conditions for a city: temperature, humidity and wind speed.',
      category: 'data_intelligence',
      tags: ['weather', 'temperature'],
      pricing: { model: 'per_call', price_per_call_usdc: '0.000500' },
      quality: { uptime_pct: 100, avg_latency_ms: 0, error_rate_pct: 0, total_calls: 0 },
      endpoint: {
        method: 'GET',
        parameters: { input: { type: 'string', required: true, description: 'input' } },
        request_schema: {
          type: 'object',
          properties: { input: { type: 'string', description: 'input' } },
          required: ['input'],
          additionalProperties: false,
        },
      },
      relevance_score: expect.any(Number),
    });
    for (const r of body.results) {
      expect(r.relevance_score).toBeGreaterThanOrEqual(0);
      expect(r.relevance_score).toBeLessThanOrEqual(1);
    }
  });

  it('limit defaults to 10, accepts 1 and 50, and total_results counts every match', async () => {
    const all = await discoverOk(t, { filters: { min_uptime_pct: 0 } });
    expect(all.results).toHaveLength(9);
    expect(all.meta.total_results).toBe(9);
    const one = await discoverOk(t, { filters: { min_uptime_pct: 0 }, limit: 1 });
    expect(one.results).toHaveLength(1);
    expect(one.meta.total_results).toBe(9);
    expect(keysOf(one)).toEqual(keysOf(all).slice(0, 1));
    const fifty = await discoverOk(t, { filters: { min_uptime_pct: 0 }, limit: 50 });
    expect(fifty.results).toHaveLength(9);
  });

  it('default limit is 10 when more endpoints match', async () => {
    const t2 = await createTestApp({ env: DISCOVERY_TEST_ENV });
    try {
      await createProvider(t2, {
        id: 'many',
        endpoints: Array.from({ length: 12 }, (_, i) => ({
          slug: `e${i}`,
          description: `Endpoint number ${i}`,
        })),
      });
      const body = await discoverOk(t2, { filters: { category: 'utility' } });
      expect(body.results).toHaveLength(10);
      expect(body.meta.total_results).toBe(12);
    } finally {
      await t2.close();
    }
  });
});

describe('POST /v1/discover: filters are hard cutoffs', () => {
  it('category keeps only that category', async () => {
    const body = await discoverOk(t, { query: 'send a message', filters: { category: 'communication' } });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.every((r) => r.category === 'communication')).toBe(true);
  });

  it('max_price_per_call is an inclusive ceiling', async () => {
    const body = await discoverOk(t, { filters: { max_price_per_call: 0.0005 }, limit: 50 });
    expect(keysOf(body).sort()).toEqual([
      'chainscan/balance',
      'skycast/conditions',
      'toolbox/qr',
      'toolbox/uuid',
    ]);
    const none = await discoverOk(t, {
      query: 'generate an image from text',
      filters: { max_price_per_call: 0.01 },
    });
    expect(keysOf(none)).not.toContain('pixelgen/generate');
  });

  it('method matches case-insensitively', async () => {
    const body = await discoverOk(t, { filters: { method: 'get' }, limit: 50 });
    expect(keysOf(body).sort()).toEqual([
      'chainscan/balance',
      'skycast/conditions',
      'skycast/outlook',
      'toolbox/uuid',
    ]);
  });

  it('tags match endpoint or provider tags, all of them required', async () => {
    const endpointTag = await discoverOk(t, { filters: { tags: ['forecast'] } });
    expect(keysOf(endpointTag)).toEqual(['skycast/outlook']);
    const providerTag = await discoverOk(t, { filters: { tags: ['tools'] }, limit: 50 });
    expect(keysOf(providerTag).sort()).toEqual(['toolbox/qr', 'toolbox/uuid']);
    const both = await discoverOk(t, { filters: { tags: ['weather', 'forecast'] } });
    expect(keysOf(both)).toEqual(['skycast/outlook']);
  });

  it('a query plus filters never returns an endpoint outside the filters', async () => {
    const body = await discoverOk(t, { query: 'weather forecast', filters: { category: 'utility' } });
    expect(body.results.every((r) => r.category === 'utility')).toBe(true);
    expect(keysOf(body)).not.toContain('skycast/outlook');
  });
});
