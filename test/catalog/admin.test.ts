import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../src/cli-admin.js';
import { one } from '../../src/db/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { providerInput, withEndpoint } from './fixtures.js';

let t: TestApp;
const changes: string[] = [];
beforeAll(async () => {
  t = await createTestApp();
  t.deps.events.on('catalog.changed', ({ providerId }) => changes.push(providerId));
});
afterAll(async () => {
  await t.close();
});

function expectValidationError(res: { statusCode: number; json(): unknown }, path: string) {
  expect(res.statusCode).toBe(400);
  const body = res.json() as { error: { code: string; details: { errors: { path: string }[] } } };
  expect(body).toEqual({
    error: {
      code: 'SVC-VAL-001',
      message: expect.any(String),
      details: { errors: expect.arrayContaining([{ path, message: expect.any(String) }]) },
    },
  });
}

describe('admin provider API: authentication', () => {
  it.each([
    ['POST', '/v1/admin/providers'],
    ['PUT', '/v1/admin/providers/acme'],
    ['DELETE', '/v1/admin/providers/acme'],
  ] as const)('%s %s refuses a missing or wrong admin token with 401 SVC-AUTH-001', async (method, url) => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-wrong-token-wrong' },
      { authorization: 'Basic x' },
    ]) {
      const res = await t.inject({ method, url, headers, payload: providerInput() });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: { code: 'SVC-AUTH-001', message: expect.any(String), details: {} },
      });
    }
  });
});

describe('admin provider API: validation', () => {
  const cases: [string, unknown, string][] = [
    ['missing name', { ...providerInput(), name: undefined }, 'name'],
    ['unknown category', providerInput({ category: 'weather' }), 'category'],
    ['provider id with capitals', providerInput({ provider_id: 'Acme' }), 'provider_id'],
    ['provider id with a double dash', providerInput({ provider_id: 'acme--x' }), 'provider_id'],
    ['provider id longer than 64', providerInput({ provider_id: 'a'.repeat(65) }), 'provider_id'],
    ['unknown field', providerInput({ owner: 'me' }), 'owner'],
    ['ftp base_url', providerInput({ base_url: 'ftp://acme.example.com' }), 'base_url'],
    ['base_url with a query', providerInput({ base_url: 'https://acme.example.com/?k=1' }), 'base_url'],
    ['base_url with an empty query', providerInput({ base_url: 'https://acme.example.com/?' }), 'base_url'],
    ['base_url with a fragment', providerInput({ base_url: 'https://acme.example.com/#x' }), 'base_url'],
    ['base_url not a URL', providerInput({ base_url: 'acme.example.com' }), 'base_url'],
    ['base_url with credentials', providerInput({ base_url: 'https://u:p@acme.example.com' }), 'base_url'],
    ['website not http', providerInput({ website: 'javascript:alert(1)' }), 'website'],
    ['uppercase tag', providerInput({ tags: ['Weather'] }), 'tags.0'],
    ['no endpoints', providerInput({ endpoints: [] }), 'endpoints'],
    ['endpoint slug with a space', withEndpoint({ slug: 'current weather' }), 'endpoints.0.slug'],
    ['empty endpoint slug', withEndpoint({ slug: '' }), 'endpoints.0.slug'],
    ['duplicate endpoint slug', withEndpoint({ slug: 'forecast' }), 'endpoints.1.slug'],
    ['unknown HTTP method', withEndpoint({ method: 'FETCH' }), 'endpoints.0.method'],
    ['lowercase HTTP method', withEndpoint({ method: 'get' }), 'endpoints.0.method'],
    ['path without leading slash', withEndpoint({ path: 'current' }), 'endpoints.0.path'],
    ['path with a query', withEndpoint({ path: '/current?x=1' }), 'endpoints.0.path'],
    [
      'parameter type not JSON Schema',
      withEndpoint({ parameters: { place: { type: 'date', required: true, description: 'd' } } }),
      'endpoints.0.parameters.place.type',
    ],
    [
      'parameter without required',
      withEndpoint({ parameters: { place: { type: 'string', description: 'd' } } }),
      'endpoints.0.parameters.place.required',
    ],
    [
      'parameter required as a string',
      withEndpoint({ parameters: { place: { type: 'string', required: 'yes', description: 'd' } } }),
      'endpoints.0.parameters.place.required',
    ],
    [
      'unknown parameter keyword',
      withEndpoint({
        parameters: { place: { type: 'string', required: true, description: 'd', nullable: true } },
      }),
      'endpoints.0.parameters.place.nullable',
    ],
    [
      'parameter name with a space',
      withEndpoint({ parameters: { 'the place': { type: 'string', required: true, description: 'd' } } }),
      'endpoints.0.parameters.the place',
    ],
    [
      'enum value of the wrong type',
      withEndpoint({
        parameters: { n: { type: 'integer', required: true, description: 'd', enum: [1, 'two'] } },
      }),
      'endpoints.0.parameters.n.enum.1',
    ],
    [
      'minimum above maximum',
      withEndpoint({
        parameters: { n: { type: 'number', required: true, description: 'd', minimum: 5, maximum: 1 } },
      }),
      'endpoints.0.parameters.n.minimum',
    ],
    [
      'minimum on a string',
      withEndpoint({ parameters: { s: { type: 'string', required: true, description: 'd', minimum: 1 } } }),
      'endpoints.0.parameters.s.minimum',
    ],
    [
      'invalid pattern',
      withEndpoint({
        parameters: { s: { type: 'string', required: true, description: 'd', pattern: '([' } },
      }),
      'endpoints.0.parameters.s.pattern',
    ],
    [
      'response field with an unknown type',
      withEndpoint({ response_schema: { temp: { type: 'float' } } }),
      'endpoints.0.response_schema.temp.type',
    ],
    [
      'zero price',
      withEndpoint({ pricing: { model: 'per_call', price_per_call_usdc: '0' } }),
      'endpoints.0.pricing.price_per_call_usdc',
    ],
    [
      'zero price with decimals',
      withEndpoint({ pricing: { model: 'per_call', price_per_call_usdc: '0.000000' } }),
      'endpoints.0.pricing.price_per_call_usdc',
    ],
    [
      'negative price',
      withEndpoint({ pricing: { model: 'per_call', price_per_call_usdc: '-0.01' } }),
      'endpoints.0.pricing.price_per_call_usdc',
    ],
    [
      'seven decimals',
      withEndpoint({ pricing: { model: 'per_call', price_per_call_usdc: '0.0000001' } }),
      'endpoints.0.pricing.price_per_call_usdc',
    ],
    [
      'exponent notation',
      withEndpoint({ pricing: { model: 'per_call', price_per_call_usdc: '1e-3' } }),
      'endpoints.0.pricing.price_per_call_usdc',
    ],
    [
      'price as a number',
      withEndpoint({ pricing: { model: 'per_call', price_per_call_usdc: 0.001 } }),
      'endpoints.0.pricing.price_per_call_usdc',
    ],
    [
      'unknown pricing model',
      withEndpoint({ pricing: { model: 'subscription', price_per_call_usdc: '1' } }),
      'endpoints.0.pricing.model',
    ],
    ['timeout below 100 ms', withEndpoint({ timeout_ms: 99 }), 'endpoints.0.timeout_ms'],
    ['timeout above 60 s', withEndpoint({ timeout_ms: 60001 }), 'endpoints.0.timeout_ms'],
    ['fractional timeout', withEndpoint({ timeout_ms: 150.5 }), 'endpoints.0.timeout_ms'],
  ];

  it.each(cases)('refuses %s with SVC-VAL-001 at its path', async (_name, body, path) => {
    const res = await t.admin('POST', '/v1/admin/providers', body);
    expectValidationError(res, path);
  });

  it('reports one clear error for a bad enum value', async () => {
    const res = await t.admin('POST', '/v1/admin/providers', providerInput({ category: 'weather' }));
    expect(res.json().error.details.errors).toEqual([
      { path: 'category', message: 'must be equal to one of the allowed values' },
    ]);
    expect(res.json().error.message).toBe('category must be equal to one of the allowed values');
  });

  it('lists every semantic problem at once', async () => {
    const input = providerInput({ base_url: 'ftp://x' });
    input.endpoints[1] = { ...input.endpoints[1], slug: 'current' } as (typeof input.endpoints)[1];
    const res = await t.admin('POST', '/v1/admin/providers', input);
    const paths = res.json().error.details.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(['base_url', 'endpoints.1.slug']);
  });

  it('validates PUT bodies the same way, and refuses a provider_id that differs from the path', async () => {
    const created = await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'put-check' }));
    expect(created.statusCode).toBe(201);
    expectValidationError(
      await t.admin('PUT', '/v1/admin/providers/put-check', withEndpoint({ method: 'TRACE' })),
      'endpoints.0.method',
    );
    expectValidationError(
      await t.admin('PUT', '/v1/admin/providers/put-check', providerInput({ provider_id: 'other' })),
      'provider_id',
    );
  });
});

describe('admin provider API: create, replace, delete', () => {
  it('creates a provider, returns the secret once, and stores it encrypted', async () => {
    changes.length = 0;
    const res = await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'acme' }));
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      provider_id: 'acme',
      name: 'Acme Weather',
      category: 'data_intelligence',
      base_url: 'https://api.acme.example.com/v2',
      website: 'https://acme.example.com',
      tags: ['weather', 'forecast'],
    });
    expect(data.provider_secret).toMatch(/^svc_ps_[0-9A-Za-z]{40}$/);
    expect(data.endpoints.map((e: { slug: string }) => e.slug)).toEqual(['current', 'forecast']);
    expect(data.endpoints[0]).toMatchObject({
      method: 'GET',
      path: '/current',
      timeout_ms: 10000,
      pricing: { model: 'per_call', price_per_call_usdc: '0.0015' },
      quality: { uptime_pct: 100, avg_latency_ms: 0, error_rate_pct: 0, total_calls: 0 },
    });
    expect(data.endpoints[1]).toMatchObject({ path: '/forecast/daily', timeout_ms: 5000 });
    expect(changes).toEqual(['acme']);

    const row = await one<{ secret_ciphertext: string }>(
      t.deps.db.orm,
      sql`SELECT secret_ciphertext FROM providers WHERE id = 'acme'`,
    );
    expect(row?.secret_ciphertext).toBeTruthy();
    expect(row?.secret_ciphertext).not.toContain(data.provider_secret);
    expect(row?.secret_ciphertext).not.toContain(data.provider_secret.slice(7));
    const price = await one<{ price_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT price_credits FROM endpoints WHERE provider_id = 'acme' AND slug = 'current'`,
    );
    expect(price?.price_credits).toBe(1500n);

    // The secret appears nowhere else: not in the public API, not in a replace answer.
    const pub = await t.inject({ method: 'GET', url: '/v1/providers/acme' });
    expect(pub.body).not.toContain(data.provider_secret);
    expect(pub.body).not.toContain('secret');
    const put = await t.admin('PUT', '/v1/admin/providers/acme', providerInput());
    expect(put.body).not.toContain(data.provider_secret);
    expect(put.json().data.provider_secret).toBeUndefined();
  });

  it('refuses a duplicate provider id with 409 SVC-VAL-007', async () => {
    await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'dup' }));
    const res = await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'dup' }));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: {
        code: 'SVC-VAL-007',
        message: expect.any(String),
        details: { errors: [{ path: 'provider_id', message: 'is already taken' }] },
      },
    });
  });

  it('derives a unique slug id from the name when none is given', async () => {
    const name = 'Zürich Data & Co.';
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.admin('POST', '/v1/admin/providers', providerInput({ name }));
      expect(res.statusCode).toBe(201);
      ids.push(res.json().data.provider_id);
    }
    expect(ids).toEqual(['zurich-data-co', 'zurich-data-co-2', 'zurich-data-co-3']);
  });

  it('gives concurrent creates of one name distinct ids, and one id to only one of them', async () => {
    const derived = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.admin('POST', '/v1/admin/providers', providerInput({ name: 'Race Co' })),
      ),
    );
    expect(derived.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    const ids = derived.map((r) => r.json().data.provider_id).sort();
    expect(ids).toEqual(['race-co', 'race-co-2', 'race-co-3', 'race-co-4', 'race-co-5']);

    const same = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'only-once' })),
      ),
    );
    expect(same.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
  });

  it('replaces a provider fully, keeping its secret and created_at', async () => {
    const created = (
      await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'swap' }))
    ).json().data;
    await t.deps.db.orm.execute(
      sql`INSERT INTO endpoint_stats (provider_id, endpoint_slug, uptime_pct, avg_latency_ms, error_rate_pct, total_calls)
          VALUES ('swap', 'current', 97.5, 120, 2.5, 40), ('swap', 'forecast', 90, 300, 10, 10)`,
    );
    const before = await one<{ secret_ciphertext: string }>(
      t.deps.db.orm,
      sql`SELECT secret_ciphertext FROM providers WHERE id = 'swap'`,
    );
    changes.length = 0;
    const replacement = providerInput({
      name: 'Swapped',
      category: 'utility',
      base_url: 'http://127.0.0.1:9999/',
      tags: [],
      website: undefined,
      endpoints: [
        {
          slug: 'current',
          method: 'POST',
          description: 'Now a POST',
          parameters: {},
          pricing: { model: 'per_call', price_per_call_usdc: '1.5' },
        },
        {
          slug: 'brand-new',
          method: 'DELETE',
          description: 'Another endpoint',
          parameters: {},
          pricing: { model: 'per_call', price_per_call_usdc: '0.000001' },
        },
      ],
    });
    const res = await t.admin('PUT', '/v1/admin/providers/swap', replacement);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      provider_id: 'swap',
      name: 'Swapped',
      category: 'utility',
      base_url: 'http://127.0.0.1:9999',
      website: null,
      tags: [],
      created_at: created.created_at,
    });
    expect(data.endpoints.map((e: { slug: string; pricing: unknown }) => [e.slug, e.pricing])).toEqual([
      ['current', { model: 'per_call', price_per_call_usdc: '1.5' }],
      ['brand-new', { model: 'per_call', price_per_call_usdc: '0.000001' }],
    ]);
    // The surviving endpoint keeps its quality; the removed one's stats are gone.
    expect(data.endpoints[0].quality).toEqual({
      uptime_pct: 97.5,
      avg_latency_ms: 120,
      error_rate_pct: 2.5,
      total_calls: 40,
    });
    const stale = await one(
      t.deps.db.orm,
      sql`SELECT 1 FROM endpoint_stats WHERE endpoint_slug = 'forecast'`,
    );
    expect(stale).toBeUndefined();
    const after = await one<{ secret_ciphertext: string }>(
      t.deps.db.orm,
      sql`SELECT secret_ciphertext FROM providers WHERE id = 'swap'`,
    );
    expect(after?.secret_ciphertext).toBe(before?.secret_ciphertext);
    expect(changes).toEqual(['swap']);
  });

  it('answers 404 SVC-EXE-001 for replacing or deleting an unknown provider', async () => {
    for (const res of [
      await t.admin('PUT', '/v1/admin/providers/nobody', providerInput()),
      await t.admin('DELETE', '/v1/admin/providers/nobody'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: { code: 'SVC-EXE-001', message: expect.any(String), details: {} },
      });
    }
  });

  it('deletes a provider: gone from the public API, endpoints cascade', async () => {
    await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'doomed' }));
    changes.length = 0;
    const res = await t.admin('DELETE', '/v1/admin/providers/doomed');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ provider_id: 'doomed', deleted: true });
    expect(changes).toEqual(['doomed']);
    const detail = await t.inject({ method: 'GET', url: '/v1/providers/doomed' });
    expect(detail.statusCode).toBe(404);
    expect(detail.json().error.code).toBe('SVC-EXE-001');
    const left = await one(t.deps.db.orm, sql`SELECT 1 FROM endpoints WHERE provider_id = 'doomed'`);
    expect(left).toBeUndefined();
    const again = await t.admin('DELETE', '/v1/admin/providers/doomed');
    expect(again.statusCode).toBe(404);
    // The id is free again.
    const recreated = await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'doomed' }));
    expect(recreated.statusCode).toBe(201);
  });
});

describe('svc admin provider commands', () => {
  const command = (name: string) => {
    const found = adminCommands.find((c) => c.name === name);
    if (!found) throw new Error(`no command ${name}`);
    return found;
  };

  it('create-provider, replace-provider and delete-provider act like the admin API', async () => {
    const file = path.join(os.tmpdir(), `svc-provider-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(providerInput({ provider_id: 'from-cli' })));
    const created = (await command('create-provider').run(t.deps, { file })) as Record<string, unknown>;
    expect(created).toMatchObject({ provider_id: 'from-cli', base_url: 'https://api.acme.example.com/v2' });
    expect(created.provider_secret).toMatch(/^svc_ps_/);
    expect((await t.inject({ method: 'GET', url: '/v1/providers/from-cli' })).statusCode).toBe(200);

    writeFileSync(file, JSON.stringify(providerInput({ name: 'Renamed' })));
    const replaced = (await command('replace-provider').run(t.deps, {
      provider: 'from-cli',
      file,
    })) as Record<string, unknown>;
    expect(replaced.name).toBe('Renamed');

    writeFileSync(file, JSON.stringify(providerInput({ base_url: 'ftp://x', category: 'utility' })));
    await expect(command('create-provider').run(t.deps, { file })).rejects.toThrow(
      'SVC-VAL-001: base_url must use http or https',
    );

    await command('delete-provider').run(t.deps, { provider: 'from-cli' });
    expect((await t.inject({ method: 'GET', url: '/v1/providers/from-cli' })).statusCode).toBe(404);
  });
});
