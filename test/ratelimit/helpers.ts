// Small helpers for the rate-limit tests.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';

/**
 * A counted request that depends on no other module: every request under /v1 counts, unknown routes
 * included (they answer 404 and still carry the X-RateLimit-* headers).
 */
export const PROBE = '/v1/ratelimit-probe';

export function probe(t: TestApp, extra: Partial<InjectOptions> = {}): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'GET', url: PROBE, ...extra });
}

/** Sends `n` requests one after the other; returns their status codes. */
export async function statuses(n: number, send: () => Promise<LightMyRequestResponse>): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) codes.push((await send()).statusCode);
  return codes;
}

export function rateHeaders(res: LightMyRequestResponse) {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

export function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
