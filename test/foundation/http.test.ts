import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('foundation', () => {
  it('answers /healthz and /readyz with a request id', async () => {
    const health = await t.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    const ready = await t.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('gives unknown routes SVC-VAL-006 in shape A', async () => {
    const res = await t.inject({ method: 'GET', url: '/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'SVC-VAL-006', message: expect.any(String), details: {} } });
  });

  it('refuses malformed JSON, wrong content type and oversized bodies with their codes', async () => {
    const headers = { authorization: 'Bearer test-admin-token-0123456789abcdef' };
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('SVC-VAL-001');

    const text = await t.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: { ...headers, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('SVC-VAL-003');

    const big = await t.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@b.co', name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('SVC-VAL-002');
  });

  it('lists every field error of an invalid body in details.errors', async () => {
    const res = await t.admin('POST', '/v1/admin/accounts', { email: 'not-an-email', extra: 1 });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('SVC-VAL-001');
    const paths = body.error.details.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['email', 'extra']);
  });

  it('protects the admin API with the admin token', async () => {
    const none = await t.inject({ method: 'POST', url: '/v1/admin/accounts', payload: { email: 'x@y.co' } });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('SVC-AUTH-001');
    const wrong = await t.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: { authorization: 'Bearer wrong-token-wrong-token-wrong' },
      payload: { email: 'x@y.co' },
    });
    expect(wrong.statusCode).toBe(401);
  });

  it('creates an account with a first key shown once, and refuses a duplicate e-mail', async () => {
    const res = await t.admin('POST', '/v1/admin/accounts', { email: 'Dev@Example.com' });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data.email).toBe('dev@example.com');
    expect(data.api_key.key).toMatch(/^svc_sk_[0-9A-Za-z]{40}$/);
    expect(data.api_key.prefix).toBe(data.api_key.key.slice(0, 11));
    const dup = await t.admin('POST', '/v1/admin/accounts', { email: 'dev@example.com' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('SVC-VAL-007');
  });

  it('serves the OpenAPI document outside production', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs-json' });
    expect(res.statusCode).toBe(200);
    expect(res.json().openapi).toMatch(/^3\./);
    expect(Object.keys(res.json().paths)).toContain('/v1/admin/accounts');
  });
});

describe('metrics', () => {
  it('serves Prometheus metrics to the admin token only', async () => {
    await t.inject({ method: 'GET', url: '/healthz' });
    const denied = await t.inject({ method: 'GET', url: '/metrics' });
    expect(denied.statusCode).toBe(401);
    const res = await t.admin('GET', '/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(
      /svc_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/,
    );
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });
});
