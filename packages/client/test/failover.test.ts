// client.call() failover, retries and idempotency against the real service and real provider servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomesWritten } from '../../../src/modules/execution/runtime.js';
import { checkLedgerInvariants } from '../../../src/modules/ledger/service.js';
import { type ProviderServer, startProviderServer } from '../../../test/helpers/providers.js';
import { CLIENT_ERROR_CODES, type SvcClient, SvcError } from '../src/index.js';
import { type LiveService, registerProvider, startService } from './setup.js';

let svc: LiveService;
let providers: ProviderServer;

/** A funded account's client, and every request header it sent. */
async function fundedUser(email: string, usdc = '1') {
  const created = await svc.admin.adminCreateAccount({ email });
  await svc.admin.adminCredit(created.data.account_id, { amount_usdc: usdc, description: 'test' });
  const sent: Headers[] = [];
  const user = svc.client({
    apiKey: created.data.api_key.key,
    fetch: (input, init) => {
      sent.push(new Headers(init?.headers));
      return fetch(input, init);
    },
  });
  return { user, sent };
}

async function ledgerOf(user: SvcClient) {
  await outcomesWritten(svc.t.app);
  const history = await user.history({ limit: 100 });
  return history.data.map((e) => `${e.type} ${e.amount_usdc}`).reverse();
}

beforeAll(async () => {
  svc = await startService();
  providers = await startProviderServer();
  await registerProvider(svc.admin, 'wx-fail-a', providers.url, [{ slug: 'forecast', behaviour: 'fail' }]);
  await registerProvider(svc.admin, 'wx-fail-b', providers.url, [{ slug: 'forecast', behaviour: 'fail' }]);
}, 60_000);
afterAll(async () => {
  await svc?.close();
  await providers?.close();
});

describe('client.call() failover', () => {
  it('moves to the next provider after a 500: charged once, refunded once, success from the second', async () => {
    // Their own category, so that discovery offers exactly these two.
    const tides = { category: 'communication', description: 'Ocean tide tables' };
    await registerProvider(
      svc.admin,
      'tide-fail',
      providers.url,
      [{ slug: 'tides', behaviour: 'fail' }],
      tides,
    );
    await registerProvider(
      svc.admin,
      'tide-ok',
      providers.url,
      [{ slug: 'tides', behaviour: 'echo' }],
      tides,
    );
    const { user, sent } = await fundedUser('failover@example.com');
    const result = await user.call({
      provider_id: 'tide-fail',
      endpoint: 'tides',
      query: 'ocean tide tables',
      category: 'communication',
      params: (candidate) => ({ city: `for ${candidate.provider_id}` }),
      max_price_per_call: '0.05',
      attempts: 3,
      call_id: 'call-1',
    });
    expect(result.provider_id).toBe('tide-ok');
    expect(result.data).toMatchObject({ received: { city: 'for tide-ok' } });
    expect(result.attempts).toMatchObject([
      {
        provider_id: 'tide-fail',
        outcome: 'refunded',
        credits_charged: '0',
        error_code: 'SVC-EXE-004',
        status: 502,
      },
      { provider_id: 'tide-ok', outcome: 'success', credits_charged: '10000', status: 200 },
    ]);
    expect(result.attempts).toHaveLength(2);
    // One key per provider attempt, and the ceiling the caller accepted on each.
    const executes = sent.filter((h) => h.has('idempotency-key'));
    expect(executes.map((h) => h.get('idempotency-key'))).toEqual(['call-1-1', 'call-1-2']);
    expect(executes.map((h) => h.get('x-svc-max-price-usdc'))).toEqual(['0.05', '0.05']);

    expect(await ledgerOf(user)).toEqual(['deposit +1', 'call -0.01', 'refund +0.01', 'call -0.01']);
    expect((await user.balance()).data.balance_usdc).toBe('0.99');
    expect(await checkLedgerInvariants(svc.t.deps.db.orm)).toEqual([]);
  });

  it('when every provider fails, charges nothing net and reports every attempt', async () => {
    const { user } = await fundedUser('allfail@example.com');
    const error = await user
      .call({ provider_id: 'wx-fail-a', endpoint: 'forecast', query: 'weather forecast', attempts: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    const err = error as SvcError;
    expect(err.code).toBe(CLIENT_ERROR_CODES.allFailed);
    expect(err.message).toContain('nothing charged');
    expect(err.message).toContain('wx-fail-a/forecast: SVC-EXE-004 (502)');
    expect(err.attempts.map((a) => [a.outcome, a.credits_charged])).toEqual([
      ['refunded', '0'],
      ['refunded', '0'],
    ]);
    expect((await user.balance()).data.balance_usdc).toBe('1');
    expect(await ledgerOf(user)).toEqual([
      'deposit +1',
      'call -0.01',
      'refund +0.01',
      'call -0.01',
      'refund +0.01',
    ]);
  });

  it('skips candidates above max_price_per_call and says when none fits', async () => {
    const { user } = await fundedUser('noneFits@example.com');
    await expect(
      user.call({ provider_id: 'wx-fail-a', endpoint: 'forecast', max_price_per_call: '0.001' }),
    ).rejects.toMatchObject({ code: CLIENT_ERROR_CODES.noCandidates });
  });

  it('stops at an account-level refusal instead of trying the next provider', async () => {
    const { user } = await fundedUser('broke@example.com', '0.001');
    const error = (await user
      .call({ provider_id: 'wx-fail-a', endpoint: 'forecast', query: 'weather forecast' })
      .catch((e: unknown) => e)) as SvcError;
    expect(error.code).toBe('SVC-PAY-001');
    expect(error.attempts).toEqual([]);
  });
});

describe('retries', () => {
  it('never resends a charged call without its Idempotency-Key; with it, resends the same key once charged', async () => {
    const created = await svc.admin.adminCreateAccount({ email: 'lost@example.com' });
    await svc.admin.adminCredit(created.data.account_id, { amount_usdc: '1', description: 'test' });
    await registerProvider(svc.admin, 'wx-lost', providers.url, [{ slug: 'forecast', behaviour: 'echo' }]);
    const keys: (string | null)[] = [];
    let dropNext = true;
    // The request reaches the service and is executed, but the answer is lost on the way back.
    const lossy = svc.client({
      apiKey: created.data.api_key.key,
      fetch: async (input, init) => {
        keys.push(new Headers(init?.headers).get('idempotency-key'));
        const response = await fetch(input, init);
        if (dropNext && String(input).includes('/v1/execute/')) {
          dropNext = false;
          await response.arrayBuffer();
          throw new TypeError('fetch failed: connection reset');
        }
        return response;
      },
    });
    await expect(lossy.execute('wx-lost', 'forecast', {})).rejects.toMatchObject({
      code: CLIENT_ERROR_CODES.network,
    });
    expect(keys).toEqual([null]);

    dropNext = true;
    keys.length = 0;
    const result = await lossy.execute('wx-lost', 'forecast', {}, { idempotencyKey: 'lost-1' });
    expect(result.status).toBe(200);
    expect(keys).toEqual(['lost-1', 'lost-1']);
    // Two debits in all: the unkeyed call and the keyed one (answered twice, charged once).
    expect(await ledgerOf(lossy)).toEqual(['deposit +1', 'call -0.01', 'call -0.01']);
  });

  it('waits out Retry-After on 429 and then succeeds', async () => {
    const limited = await startService({
      // An account gets the larger of the account limit and its trust tier's (new) limit.
      env: {
        SVC_RATE_LIMIT_ACCOUNT: '2',
        SVC_RATE_LIMIT_WALLET_NEW: '2',
        SVC_RATE_LIMIT_WINDOW_SECONDS: '1',
      },
    });
    try {
      const created = await limited.admin.adminCreateAccount({ email: 'limited@example.com' });
      const statuses: number[] = [];
      const retryAfter: (string | null)[] = [];
      const user = limited.client({
        apiKey: created.data.api_key.key,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          retryAfter.push(response.headers.get('retry-after'));
          return response;
        },
      });
      for (let i = 0; i < 4; i++) expect((await user.balance()).data.balance_usdc).toBe('0');
      expect(statuses).toContain(429);
      const limitedAt = statuses.indexOf(429);
      expect(Number(retryAfter[limitedAt])).toBeGreaterThanOrEqual(1);
      expect(statuses[limitedAt + 1]).toBe(200);

      const impatient = limited.client({ apiKey: created.data.api_key.key, retry: { retries: 0 } });
      const burst = await Promise.allSettled([1, 2, 3, 4].map(() => impatient.balance()));
      const refused = burst.find((r) => r.status === 'rejected');
      expect(refused?.status === 'rejected' && refused.reason).toMatchObject({
        code: 'SVC-RATE-001',
        status: 429,
      });
    } finally {
      await limited.close();
    }
  });
});
