// The OpenAPI document is what @svc/client is generated from: every operation must carry a summary, tags
// and a schema for each status it answers. Two checks: a table of the statuses each route can answer
// (kept beside the code that throws them), and probes that make every route answer its credential and
// validation errors and check those statuses are documented.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app.js';

interface Operation {
  summary?: string;
  tags?: string[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

/**
 * Statuses any route may answer: documented once in docs/decisions.md (OpenAPI), not per operation.
 * 405 SVC-VAL-008 answers a method a path does not serve, so no documented operation can carry it.
 */
const UNIVERSAL = new Set(['405', '413', '415', '429', '500', '503']);

/** What each route can answer, from its handler and the service functions it calls. */
const ANSWERS: Record<string, (number | string)[]> = {
  'GET /healthz': [200],
  'GET /readyz': [200, 503],
  'POST /v1/admin/accounts': [201, 400, 401, 409],
  'POST /v1/admin/accounts/{accountId}/suspend': [200, 400, 401, 404, 409],
  'POST /v1/admin/accounts/{accountId}/reinstate': [200, 400, 401, 404, 409],
  'POST /v1/admin/accounts/{accountId}/credits': [201, 400, 401, 404],
  'POST /v1/admin/providers': [201, 400, 401, 404, 409],
  'PUT /v1/admin/providers/{providerId}': [200, 400, 401, 404, 409],
  'DELETE /v1/admin/providers/{providerId}': [200, 400, 401, 404],
  'GET /v1/admin/listings': [200, 401],
  'POST /v1/admin/providers/{providerId}/approve': [200, 400, 401, 404],
  'POST /v1/provider/listings': [201, 400, 401, 403, 409],
  'GET /v1/provider/listings': [200, 401, 403],
  'GET /v1/provider/listings/{providerId}': [200, 400, 401, 403, 404],
  'PUT /v1/provider/listings/{providerId}': [200, 400, 401, 403, 404],
  'DELETE /v1/provider/listings/{providerId}': [200, 400, 401, 403, 404],
  'GET /v1/provider/payout-wallet': [200, 401, 403],
  'PUT /v1/provider/payout-wallet': [200, 400, 401, 403],
  'POST /v1/admin/coupons': [201, 400, 401, 409],
  'POST /v1/auth/login': [202, 400],
  'POST /v1/auth/verify': [200, 400, 401, 403],
  'POST /v1/auth/challenge': [200, 400],
  'GET /v1/auth/status': [200, 401, 403],
  'GET /v1/keys': [200, 400, 401, 403],
  'POST /v1/keys': [201, 400, 401, 403],
  'DELETE /v1/keys/{keyId}': [200, 400, 401, 403, 404],
  'PUT /v1/keys/{keyId}/policy': [200, 400, 401, 403, 404],
  'GET /v1/providers': [200, 400],
  'GET /v1/providers/{providerId}': [200, 400, 404],
  'GET /v1/providers/{providerId}/endpoints/{slug}': [200, 400, 404],
  'POST /v1/discover': [200, 400],
  'POST /v1/execute/{providerId}/{endpointSlug}': [200, 400, 401, 402, 403, 404, 409, 422, 502, 504, '4XX'],
  'GET /v1/wallet/balance': [200, 401, 403],
  'GET /v1/wallet/history': [200, 400, 401, 403],
  'GET /v1/provider/earnings': [200, 401, 403],
  'GET /v1/provider/settlements': [200, 400, 401, 403],
  'POST /v1/admin/settlements/run': [200, 400, 401],
  'GET /v1/admin/settlements': [200, 400, 401],
  'POST /v1/admin/settlements/{settlementId}/retry': [200, 400, 401, 404, 409],
  'GET /v1/admin/settlements/fees': [200, 400, 401],
  'GET /v1/wallet/deposit-address': [200],
  'POST /v1/wallet/deposit': [201, 400, 401, 403, 409],
  'GET /v1/wallet/links': [200, 401, 403],
  'POST /v1/wallet/links': [201, 400, 401, 403, 409],
  'DELETE /v1/wallet/links/{address}': [200, 400, 401, 403, 404, 409],
  'GET /v1/devnet': [200],
  'POST /v1/devnet/faucet': [200, 400],
  'POST /v1/billing/checkout': [200, 400, 401, 403],
  'GET /v1/billing/payments': [200, 400, 401, 403],
  'GET /v1/billing/balance': [200, 400, 401, 403],
  'GET /v1/billing/transactions': [200, 400, 401, 403],
  'GET /v1/billing/usage': [200, 400, 401, 403],
  'GET /v1/billing/usage/export': [200, 400, 401, 403],
  'GET /v1/billing/limits': [200, 401, 403],
  'PUT /v1/billing/limits': [200, 400, 401, 403],
  'GET /v1/billing/alerts': [200, 401, 403],
  'PUT /v1/billing/alerts': [200, 400, 401, 403],
  'POST /v1/billing/coupons/redeem': [200, 400, 401, 403, 404, 409, 410],
  'POST /x402/{providerId}/{slug}': [200, 400, 402, 404, 409, 502, 504, '4XX'],
  'GET /discovery/resources': [200, 400],
};

let t: TestApp;
let doc: OpenApi;
let apiKey: string;
let accountId: string;

function operations(): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
}

const documented = (key: string) =>
  new Set(
    Object.keys(
      doc.paths[key.split(' ')[1] ?? '']?.[key.split(' ')[0]?.toLowerCase() ?? '']?.responses ?? {},
    ),
  );
const urlOf = (key: string) => (key.split(' ')[1] ?? '').replace(/\{[^}]+\}/g, 'zz_unknown');
const methodOf = (key: string) => key.split(' ')[0] as 'GET' | 'POST' | 'PUT' | 'DELETE';

beforeAll(async () => {
  t = await createTestApp();
  doc = JSON.parse((await t.inject({ method: 'GET', url: '/docs-json' })).body) as OpenApi;
  ({ apiKey, accountId } = await t.createAccount('openapi@example.com'));
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('OpenAPI document', () => {
  it('gives every operation a summary, tags and a schema for each documented status', () => {
    const missing: string[] = [];
    for (const [key, op] of operations()) {
      if (!op.summary?.trim()) missing.push(`${key}: summary`);
      if (!op.tags?.length) missing.push(`${key}: tags`);
      for (const [status, response] of Object.entries(op.responses)) {
        const schemas = Object.values(response.content ?? {}).filter((c) => c.schema !== undefined);
        if (schemas.length === 0) missing.push(`${key} ${status}: schema`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents exactly the statuses each route can answer', () => {
    const actual = Object.fromEntries(
      operations().map(([key, op]) => [key, Object.keys(op.responses).sort()]),
    );
    const expected = Object.fromEntries(
      Object.entries(ANSWERS).map(([key, statuses]) => [key, statuses.map(String).sort()]),
    );
    expect(actual).toEqual(expected);
  });

  it('documents the status every route answers without credentials and with an invalid body', async () => {
    const undocumented: string[] = [];
    for (const [key] of operations()) {
      const method = methodOf(key);
      const payload = method === 'GET' || method === 'DELETE' ? undefined : { zz_not_a_field: true };
      const probes = [
        { headers: {} as Record<string, string> },
        { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
        { headers: { 'x-svc-api-key': apiKey } },
      ];
      for (const probe of probes) {
        const res = await t.inject({ method, url: urlOf(key), headers: probe.headers, payload });
        const status = String(res.statusCode);
        if (
          !documented(key).has(status) &&
          !UNIVERSAL.has(status) &&
          !documented(key).has(`${status[0]}XX`)
        ) {
          undocumented.push(`${key} answered ${status} (${res.body.slice(0, 80)})`);
        }
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('answers 201 where it documents 201: admin account creation and credits', async () => {
    const created = await t.admin('POST', '/v1/admin/accounts', { email: 'openapi-201@example.com' });
    expect(created.statusCode).toBe(201);
    expect(documented('POST /v1/admin/accounts').has('201')).toBe(true);
    const credited = await t.admin('POST', `/v1/admin/accounts/${accountId}/credits`, {
      amount_usdc: '1.5',
      description: 'openapi test',
    });
    expect(credited.statusCode).toBe(201);
    expect(credited.json().data.amountUsdc).toBe('1.500000');
    expect(documented('POST /v1/admin/accounts/{accountId}/credits').has('201')).toBe(true);
  });
});
