// Shared setup of the billing tests: an app whose rate limits do not get in the way, requests as an
// account, funding through the ledger, and the invariant check after each scenario.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';

export async function createBillingApp(opts: TestAppOptions = {}): Promise<TestApp> {
  return createTestApp({ ...opts, env: { SVC_RATE_LIMIT_MULTIPLIER: '1000', ...opts.env } });
}

export type As = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) => Promise<LightMyRequestResponse>;

/** Requests with an account's API key. */
export function as(t: TestApp, apiKey: string): As {
  return (method, url, payload) =>
    t.inject({
      method,
      url,
      headers: { 'x-svc-api-key': apiKey },
      ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
    });
}

export async function expectInvariants(t: TestApp) {
  expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
}

export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  expect({ status: res.statusCode, code: res.json().error?.code }).toEqual({ status, code });
}

export async function balanceOf(t: TestApp, apiKey: string): Promise<bigint> {
  const res = await as(t, apiKey)('GET', '/v1/billing/balance');
  expect(res.statusCode).toBe(200);
  return BigInt(res.json().balanceCredits);
}
