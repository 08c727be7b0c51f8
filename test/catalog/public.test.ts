import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { providerInput } from './fixtures.js';

let t: TestApp;
// 7 providers; ids deliberately not created in id order.
const PROVIDERS: [string, string][] = [
  ['p-05', 'utility'],
  ['p-01', 'ai_ml'],
  ['p-03', 'utility'],
  ['p-07', 'blockchain'],
  ['p-02', 'utility'],
  ['p-06', 'communication'],
  ['p-04', 'data_intelligence'],
];
const ALL_IDS = PROVIDERS.map(([id]) => id).sort();

beforeAll(async () => {
  // Anonymous callers have a small per-minute budget; this file makes many public reads.
  t = await createTestApp({ env: { SVC_RATE_LIMIT_MULTIPLIER: '100' } });
  for (const [id, category] of PROVIDERS) {
    const res = await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: id, category }));
    if (res.statusCode !== 201) throw new Error(res.body);
  }
});
afterAll(async () => {
  await t.close();
});

const get = (url: string) => t.inject({ method: 'GET', url });

function expectBadQuery(res: { statusCode: number; json(): unknown }, path: string) {
  expect(res.statusCode).toBe(400);
  expect(res.json()).toEqual({
    error: {
      code: 'SVC-VAL-001',
      message: expect.any(String),
      details: { errors: expect.arrayContaining([{ path, message: expect.any(String) }]) },
    },
  });
}

async function walk(query: string, limit: number) {
  const pages: { ids: string[]; hasMore: boolean }[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(`/v1/providers?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    pages.push({
      ids: body.data.map((p: { provider_id: string }) => p.provider_id),
      hasMore: body.pagination.has_more,
    });
    cursor = body.pagination.next_cursor;
    expect(cursor === null).toBe(!body.pagination.has_more);
  } while (cursor !== null && pages.length < 20);
  return pages;
}

describe('GET /v1/providers', () => {
  it('lists providers in id order in the envelope with cursor pagination', async () => {
    const res = await get('/v1/providers');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'meta', 'pagination']);
    expect(body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect(body.meta).toEqual({ request_id: res.headers['x-request-id'], timestamp: expect.any(String) });
    expect(body.data.map((p: { provider_id: string }) => p.provider_id)).toEqual(ALL_IDS);
    const first = body.data[0];
    expect(first).toEqual({
      provider_id: 'p-01',
      name: 'Acme Weather',
      description: 'Weather data for anywhere on Earth',
      category: 'ai_ml',
      website: 'https://acme.example.com',
      tags: ['weather', 'forecast'],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
      endpoints: [
        {
          slug: 'current',
          method: 'GET',
          description: 'Current weather for a place',
          tags: ['weather', 'live'],
          pricing: { model: 'per_call', price_per_call_usdc: '0.0015' },
        },
        {
          slug: 'forecast',
          method: 'POST',
          description: 'Seven-day forecast',
          tags: [],
          pricing: { model: 'per_call', price_per_call_usdc: '0.002' },
        },
      ],
    });
    expect(res.body).not.toContain('base_url');
    expect(res.body).not.toContain('api.acme.example.com');
  });

  it('walks every provider exactly once with a cursor, for several page sizes', async () => {
    for (const limit of [1, 2, 3, 6]) {
      const pages = await walk('', limit);
      expect(pages.flatMap((p) => p.ids)).toEqual(ALL_IDS);
      expect(pages.slice(0, -1).every((p) => p.ids.length === limit && p.hasMore)).toBe(true);
      expect(pages.at(-1)?.hasMore).toBe(false);
    }
  });

  it('says has_more false when the last page is exactly full', async () => {
    const pages = await walk('', 7);
    expect(pages).toEqual([{ ids: ALL_IDS, hasMore: false }]);
  });

  it('accepts limit 1 and 100 and refuses 0, 101, negatives and non-integers', async () => {
    expect((await get('/v1/providers?limit=1')).json().data).toHaveLength(1);
    expect((await get('/v1/providers?limit=100')).json().data).toHaveLength(7);
    for (const bad of ['0', '101', '-1', '2.5', 'ten', '']) {
      expectBadQuery(await get(`/v1/providers?limit=${bad}`), 'querystring.limit');
    }
  });

  it('refuses a malformed cursor with SVC-VAL-001', async () => {
    const forged = [
      'not-a-cursor',
      Buffer.from('[1]').toString('base64url'),
      Buffer.from('["a","b"]').toString('base64url'),
      Buffer.from('{}').toString('base64url'),
    ];
    for (const cursor of forged) expectBadQuery(await get(`/v1/providers?cursor=${cursor}`), 'cursor');
  });

  it('filters by category, paging within the filter', async () => {
    const pages = await walk('&category=utility', 2);
    expect(pages).toEqual([
      { ids: ['p-02', 'p-03'], hasMore: true },
      { ids: ['p-05'], hasMore: false },
    ]);
    const none = await get(
      `/v1/providers?category=ai_ml&cursor=${Buffer.from('["p-01"]').toString('base64url')}`,
    );
    expect(none.json()).toMatchObject({ data: [], pagination: { has_more: false, next_cursor: null } });
  });

  it('refuses an unknown category with SVC-VAL-001', async () => {
    expectBadQuery(await get('/v1/providers?category=weather'), 'querystring.category');
    expectBadQuery(await get('/v1/providers?category=UTILITY'), 'querystring.category');
  });
});

describe('GET /v1/providers/:providerId', () => {
  it('returns the provider with full endpoint schemas, pricing and default quality', async () => {
    const res = await get('/v1/providers/p-03');
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data.provider_id).toBe('p-03');
    expect(data.endpoints[0]).toEqual({
      slug: 'current',
      method: 'GET',
      description: 'Current weather for a place',
      tags: ['weather', 'live'],
      parameters: {
        place: { type: 'string', required: true, description: 'Place name' },
        units: { type: 'string', required: false, description: 'metric or us', enum: ['metric', 'us'] },
      },
      response_schema: { temp: { type: 'number' }, summary: { type: 'string' } },
      pricing: { model: 'per_call', price_per_call_usdc: '0.0015' },
      quality: { uptime_pct: 100, avg_latency_ms: 0, error_rate_pct: 0, total_calls: 0 },
    });
    expect(data.endpoints[1].response_schema).toEqual({});
    expect(res.body).not.toMatch(/base_url|secret|forecast\/daily|timeout/);
  });

  it('answers 404 SVC-EXE-001 for an unknown provider', async () => {
    const res = await get('/v1/providers/nobody');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'SVC-EXE-001', message: expect.any(String), details: {} } });
  });
});

describe('GET /v1/providers/:providerId/endpoints/:slug', () => {
  it('returns SPEC 2.3 fields, the request schema and quality defaults when there are no calls', async () => {
    const res = await get('/v1/providers/p-04/endpoints/forecast');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      provider_id: 'p-04',
      provider_name: 'Acme Weather',
      category: 'data_intelligence',
      slug: 'forecast',
      method: 'POST',
      description: 'Seven-day forecast',
      tags: [],
      parameters: {
        place: { type: 'string', required: true, description: 'Place name' },
        days: { type: 'integer', required: false, description: 'Days ahead', minimum: 1, maximum: 7 },
      },
      request_schema: {
        type: 'object',
        properties: {
          place: { type: 'string', description: 'Place name' },
          days: { type: 'integer', description: 'Days ahead', minimum: 1, maximum: 7 },
        },
        required: ['place'],
        additionalProperties: false,
      },
      response_schema: {},
      pricing: { model: 'per_call', price_per_call_usdc: '0.002' },
      quality: { uptime_pct: 100, avg_latency_ms: 0, error_rate_pct: 0, total_calls: 0 },
      timeout_ms: 5000,
    });
  });

  it('keeps parameters in the order the provider listed them', async () => {
    const { data } = (await get('/v1/providers/p-04/endpoints/forecast')).json();
    expect(Object.keys(data.parameters)).toEqual(['place', 'days']);
    expect(Object.keys(data.parameters.days)).toEqual([
      'type',
      'required',
      'description',
      'minimum',
      'maximum',
    ]);
    expect(Object.keys(data.request_schema.properties)).toEqual(['place', 'days']);
  });

  it('reports the quality metrics of endpoint_stats', async () => {
    await t.deps.db.orm.execute(
      sql`INSERT INTO endpoint_stats (provider_id, endpoint_slug, uptime_pct, avg_latency_ms, error_rate_pct, total_calls)
          VALUES ('p-04', 'current', 99.25, 87.5, 1.75, 1234)`,
    );
    const quality = { uptime_pct: 99.25, avg_latency_ms: 87.5, error_rate_pct: 1.75, total_calls: 1234 };
    expect((await get('/v1/providers/p-04/endpoints/current')).json().data.quality).toEqual(quality);
    expect((await get('/v1/providers/p-04')).json().data.endpoints[0].quality).toEqual(quality);
    // Another provider's endpoint with the same slug keeps its defaults.
    expect((await get('/v1/providers/p-05/endpoints/current')).json().data.quality.total_calls).toBe(0);
  });

  it('answers 404 SVC-EXE-001 for an unknown provider and SVC-EXE-002 for an unknown endpoint', async () => {
    const noProvider = await get('/v1/providers/nobody/endpoints/current');
    expect(noProvider.statusCode).toBe(404);
    expect(noProvider.json()).toEqual({
      error: { code: 'SVC-EXE-001', message: expect.any(String), details: {} },
    });
    const noEndpoint = await get('/v1/providers/p-04/endpoints/nothing');
    expect(noEndpoint.statusCode).toBe(404);
    expect(noEndpoint.json()).toEqual({
      error: { code: 'SVC-EXE-002', message: expect.any(String), details: {} },
    });
  });
});
