import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, expectInvariants, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { runCommonAuthChecks } from '../helpers/auth-checks.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';

let t: TestApp;
let server: ProviderServer;
let providerId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  server = await startProviderServer({ record: false });
  providerId = (
    await registerProvider(t, server.url, [
      { slug: 'echo', price_usdc: '0.25' },
      { slug: 'fail', price_usdc: '0.5' },
      {
        slug: 'slow',
        price_usdc: '0.1',
        parameters: { delay_ms: { type: 'integer', required: true, description: 'how long to take' } },
      },
    ])
  ).providerId;
});
afterAll(async () => {
  await t.close();
  await server.close();
});

const get = (apiKey: string, url: string) =>
  t.inject({ method: 'GET', url, headers: { 'x-svc-api-key': apiKey } });

describe('GET /v1/wallet/balance', () => {
  it('shows balance, deposits, spend net of refunds and calls still in flight', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '10');
    await execute(t, acc.apiKey, providerId, 'echo', {});
    await execute(t, acc.apiKey, providerId, 'fail', {});
    // A call held at the provider is pending while we look.
    const inFlight = t.inject({
      method: 'POST',
      url: `/v1/execute/${providerId}/slow`,
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { delay_ms: 800 },
    });
    let during = await get(acc.apiKey, '/v1/wallet/balance');
    for (let i = 0; i < 40 && during.json().data.pending_settlements_usdc === '0'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      during = await get(acc.apiKey, '/v1/wallet/balance');
    }
    expect(during.statusCode).toBe(200);
    expect(during.json()).toEqual({
      data: {
        balance_usdc: '9.65',
        pending_settlements_usdc: '0.1',
        total_deposited_usdc: '10',
        total_spent_usdc: '0.35',
      },
      meta: { request_id: expect.any(String), timestamp: expect.any(String) },
    });
    await inFlight;
    const after = (await get(acc.apiKey, '/v1/wallet/balance')).json().data;
    expect(after).toEqual({
      balance_usdc: '9.65',
      pending_settlements_usdc: '0',
      total_deposited_usdc: '10',
      total_spent_usdc: '0.35',
    });
  });

  it('refuses missing, bad, revoked and suspended credentials', async () => {
    await runCommonAuthChecks(t, { method: 'GET', url: '/v1/wallet/balance' });
  });
});

describe('GET /v1/wallet/history', () => {
  it('lists signed entries newest first; calls carry call_id/provider_id/endpoint; credits show as deposits', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '2');
    const ok = (await execute(t, acc.apiKey, providerId, 'echo', {})).json();
    const failed = (await execute(t, acc.apiKey, providerId, 'fail', {})).json();
    const res = await get(acc.apiKey, '/v1/wallet/history');
    expect(res.statusCode).toBe(200);
    const { data, pagination } = res.json();
    expect(pagination).toEqual({ has_more: false, next_cursor: null });
    expect(data.map((e: { type: string; amount_usdc: string }) => [e.type, e.amount_usdc])).toEqual([
      ['refund', '+0.5'],
      ['call', '-0.5'],
      ['call', '-0.25'],
      ['deposit', '+2'],
    ]);
    expect(data[2]).toMatchObject({
      call_id: ok.svc.call_id,
      provider_id: providerId,
      endpoint: 'echo',
      id: expect.stringMatching(/^txn_/),
      timestamp: expect.any(String),
    });
    expect(data[0].call_id).toBe(failed.error.details.call_id);
    expect(data[3].call_id).toBeUndefined();

    const refunds = (await get(acc.apiKey, '/v1/wallet/history?type=refund')).json().data;
    expect(refunds).toHaveLength(1);
    const deposits = (await get(acc.apiKey, '/v1/wallet/history?type=deposit')).json().data;
    expect(deposits.map((e: { amount_usdc: string }) => e.amount_usdc)).toEqual(['+2']);
    const calls = (await get(acc.apiKey, '/v1/wallet/history?type=call')).json().data;
    expect(calls).toHaveLength(2);
    expect((await get(acc.apiKey, '/v1/wallet/history?type=settlement')).json().data).toEqual([]);
  });

  it('pages with a cursor that stays correct while new entries arrive', async () => {
    const acc = await t.createAccount();
    for (let i = 1; i <= 5; i++) {
      await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/credits`, {
        amount_usdc: String(i),
        description: `credit ${i}`,
      });
    }
    const first = (await get(acc.apiKey, '/v1/wallet/history?limit=2')).json();
    expect(first.data.map((e: { amount_usdc: string }) => e.amount_usdc)).toEqual(['+5', '+4']);
    expect(first.pagination.has_more).toBe(true);
    // New activity between pages does not shift the next page.
    await fund(t, acc.accountId, '100');
    const second = (
      await get(acc.apiKey, `/v1/wallet/history?limit=2&cursor=${first.pagination.next_cursor}`)
    ).json();
    expect(second.data.map((e: { amount_usdc: string }) => e.amount_usdc)).toEqual(['+3', '+2']);
    const third = (
      await get(acc.apiKey, `/v1/wallet/history?limit=2&cursor=${second.pagination.next_cursor}`)
    ).json();
    expect(third.data.map((e: { amount_usdc: string }) => e.amount_usdc)).toEqual(['+1']);
    expect(third.pagination).toEqual({ has_more: false, next_cursor: null });
  });

  it('shows only the caller account and validates its query', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await fund(t, a.accountId, '1');
    expect((await get(b.apiKey, '/v1/wallet/history')).json().data).toEqual([]);
    expect((await get(a.apiKey, '/v1/wallet/history?limit=101')).statusCode).toBe(400);
    expect((await get(a.apiKey, '/v1/wallet/history?limit=0')).statusCode).toBe(400);
    expect((await get(a.apiKey, '/v1/wallet/history?type=debit')).statusCode).toBe(400);
    const bad = await get(a.apiKey, '/v1/wallet/history?cursor=not-a-cursor');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('SVC-VAL-001');
    const list = (await get(a.apiKey, '/v1/wallet/history')).json();
    expect(list.data).toHaveLength(1);
    await expectInvariants(t);
  });

  it('refuses missing, bad, revoked and suspended credentials', async () => {
    await runCommonAuthChecks(t, { method: 'GET', url: '/v1/wallet/history' });
  });
});

describe('the ledger behind the views', () => {
  it('keeps history and balance in agreement', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '3');
    await execute(t, acc.apiKey, providerId, 'echo', {});
    const [row] = (
      (await t.deps.db.orm.execute(
        sql`SELECT sum(amount_credits) AS s FROM ledger_entries WHERE account_id = ${acc.accountId}`,
      )) as unknown as { rows: { s: bigint }[] }
    ).rows;
    expect(String(row?.s)).toBe('2750000');
    expect((await get(acc.apiKey, '/v1/wallet/balance')).json().data.balance_usdc).toBe('2.75');
  });
});
