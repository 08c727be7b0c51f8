import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { refreshEndpointStats } from '../../src/modules/execution/stats.js';
import { SWEEP_MARGIN_MS, sweepAbandonedCalls } from '../../src/modules/execution/sweeper.js';
import { debitForCall } from '../../src/modules/ledger/calls.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { runCommonAuthChecks } from '../helpers/auth-checks.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  balanceCredits,
  execute,
  expectInvariants,
  fund,
  outcomesRecorded,
  registerProvider,
} from './fixtures.js';

const clock = new ManualClock(new Date('2026-11-20T10:00:00Z'));
let t: TestApp;
let server: ProviderServer;
let providerId: string;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  server = await startProviderServer({ record: false });
  providerId = (
    await registerProvider(t, server.url, [
      { slug: 'echo', path: '/m/echo' },
      { slug: 'bad-request', path: '/m/bad-request' },
      { slug: 'fail', path: '/m/fail' },
      { slug: 'hang', path: '/m/hang', timeout_ms: 200 },
    ])
  ).providerId;
});
afterAll(async () => {
  await t.close();
  await server.close();
});

async function stats(slug: string) {
  return one<{ uptime_pct: number; error_rate_pct: number; avg_latency_ms: number; total_calls: bigint }>(
    t.deps.db.orm,
    sql`SELECT uptime_pct, error_rate_pct, avg_latency_ms, total_calls FROM endpoint_stats
        WHERE provider_id = ${providerId} AND endpoint_slug = ${slug}`,
  );
}

describe('quality metrics from the call log', () => {
  it('computes uptime, error rate and latency over 24 hours and lifetime total calls', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '10');
    // A day ago: two failures that must leave the window but stay in total_calls.
    await execute(t, acc.apiKey, providerId, 'echo', {});
    await execute(t, acc.apiKey, providerId, 'echo', {});
    clock.advance(25 * 3600_000);
    for (let i = 0; i < 6; i++) await execute(t, acc.apiKey, providerId, 'echo', {});
    await execute(t, acc.apiKey, providerId, 'fail', {});
    await execute(t, acc.apiKey, providerId, 'bad-request', {});
    await execute(t, acc.apiKey, providerId, 'hang', {});
    await outcomesRecorded(t);
    await refreshEndpointStats(t.deps);

    const echo = await stats('echo');
    expect(echo).toMatchObject({ uptime_pct: 100, error_rate_pct: 0, total_calls: 8n });
    expect(echo?.avg_latency_ms).toBeGreaterThanOrEqual(0);
    expect(await stats('fail')).toMatchObject({ uptime_pct: 0, error_rate_pct: 100, total_calls: 1n });
    // A 4xx is an error but not downtime; a timeout is both.
    expect(await stats('bad-request')).toMatchObject({
      uptime_pct: 100,
      error_rate_pct: 100,
      total_calls: 1n,
    });
    const hang = await stats('hang');
    expect(hang).toMatchObject({ uptime_pct: 0, error_rate_pct: 100, total_calls: 1n });
    expect(hang?.avg_latency_ms).toBeGreaterThanOrEqual(150);

    // Another day with no calls: the window is empty again, total_calls stays.
    clock.advance(25 * 3600_000);
    await refreshEndpointStats(t.deps);
    expect(await stats('fail')).toMatchObject({ uptime_pct: 100, error_rate_pct: 0, total_calls: 1n });
  });
});

describe('sweeper', () => {
  it('refunds a call left pending past its deadline plus the margin, exactly once, even with two sweepers', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const now = clock.now();
    // What a crashed instance leaves behind: the debit and the pending call, nothing else.
    const debited = await debitForCall(t.deps.db.orm, {
      callId: 'call_abandoned_1',
      accountId: acc.accountId,
      apiKeyId: acc.keyId,
      providerId,
      endpointSlug: 'echo',
      priceCredits: 10_000n,
      now,
      deadlineAt: new Date(now.getTime() + 1_000),
      idempotencyKey: 'abandoned-key',
      requestHash: 'x',
    });
    expect(debited?.balanceAfter).toBe(990_000n);
    clock.advance(1_000 + SWEEP_MARGIN_MS - 10);
    expect(await sweepAbandonedCalls(t.deps)).toBe(0);
    clock.advance(20);
    const [a, b] = await Promise.all([sweepAbandonedCalls(t.deps), sweepAbandonedCalls(t.deps)]);
    expect((a ?? 0) + (b ?? 0)).toBe(1);
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
    const call = await one<{ status: string; refund_reason: string; response_status: number }>(
      t.deps.db.orm,
      sql`SELECT status, refund_reason, response_status FROM calls WHERE id = 'call_abandoned_1'`,
    );
    expect(call).toEqual({ status: 'timeout', refund_reason: 'abandoned', response_status: 504 });
    await expectInvariants(t);
  });
});

describe('execute authentication', () => {
  it('refuses missing, bad, revoked and suspended credentials', async () => {
    await runCommonAuthChecks(t, { method: 'POST', url: `/v1/execute/${providerId}/echo`, payload: {} });
  });
});
