// POST /v1/execute without a credential tells an agent where the same call is paid per call with x402.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/execute without credential', () => {
  it('answers 401 SVC-AUTH-001 with details.x402_url', async () => {
    const res = await t.inject({ method: 'POST', url: '/v1/execute/acme/lookup', payload: {} });
    expect(res.statusCode).toBe(401);
    const error = res.json().error;
    expect(error.code).toBe('SVC-AUTH-001');
    expect(error.details.x402_url).toBe(`${t.config.publicUrl}/x402/acme/lookup`);
  });

  it('keeps the plain 401 for a bad credential (no payment hint for a typo in a key)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/execute/acme/lookup',
      headers: { 'x-svc-api-key': 'svc_live_nope' },
      payload: {},
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.details?.x402_url).toBeUndefined();
  });
});
