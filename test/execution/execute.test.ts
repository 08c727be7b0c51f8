import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { verifyProviderSignature } from '../../src/modules/catalog/signature.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  balanceCredits,
  execute,
  expectInvariants,
  fund,
  outcomesRecorded,
  registerProvider,
} from './fixtures.js';

let t: TestApp;
let server: ProviderServer;
let providerId: string;
let secret: string;

beforeAll(async () => {
  t = await createTestApp();
  server = await startProviderServer();
  const p = await registerProvider(t, server.url, [
    {
      slug: 'echo',
      price_usdc: '0.01',
      parameters: {
        text: { type: 'string', required: true, description: 'what to echo' },
        count: { type: 'integer', required: false, description: 'how many' },
      },
    },
    {
      slug: 'lookup',
      method: 'GET',
      path: '/echo',
      price_usdc: '0.002',
      parameters: { q: { type: 'string', required: true, description: 'query' } },
    },
    { slug: 'bad-request', price_usdc: '0.01' },
    { slug: 'fail', price_usdc: '0.01' },
    { slug: 'hang', price_usdc: '0.01', timeout_ms: 300 },
    { slug: 'close', price_usdc: '0.01' },
    { slug: 'garbage', price_usdc: '0.01' },
    { slug: 'oversized', price_usdc: '0.01' },
    {
      slug: 'pricey',
      path: '/echo',
      price_usdc: '5',
      parameters: { text: { type: 'string', required: true, description: 'what to echo' } },
    },
  ]);
  providerId = p.providerId;
  secret = p.secret;
});

afterAll(async () => {
  await t.close();
  await server.close();
});

async function newFundedAccount(usdc = '1') {
  const acc = await t.createAccount();
  await fund(t, acc.accountId, usdc);
  return acc;
}

describe('POST /v1/execute/:providerId/:endpointSlug', () => {
  it('charges a successful call and wraps the provider answer in svc metadata', async () => {
    const acc = await newFundedAccount('1');
    const res = await execute(t, acc.apiKey, providerId, 'echo', { text: 'hi', count: 2 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.svc).toEqual({
      call_id: expect.stringMatching(/^call_/),
      provider_id: providerId,
      endpoint: 'echo',
      charged_usdc: '0.010000',
      remaining_balance_usdc: '0.990000',
      latency_ms: expect.any(Number),
    });
    expect(body.data).toEqual({ ok: true, received: { text: 'hi', count: 2 }, query: '' });
    expect(await balanceCredits(t, acc.accountId)).toBe(990_000n);
    // The outcome row is written just after the answer (execution/settle-queue.ts).
    await outcomesRecorded(t);
    const [call] = await rows<{
      status: string;
      provider_status: number;
      api_key_id: string;
      refunded: boolean;
    }>(
      t.deps.db.orm,
      sql`SELECT status, provider_status, api_key_id, refunded FROM calls WHERE id = ${body.svc.call_id}`,
    );
    expect(call).toEqual({ status: 'success', provider_status: 200, api_key_id: acc.keyId, refunded: false });
    await expectInvariants(t);
  });

  it('signs the forwarded call and never passes on the caller credentials or other X-Svc-* headers', async () => {
    const acc = await newFundedAccount();
    const res = await execute(
      t,
      acc.apiKey,
      providerId,
      'echo',
      { text: 'secret stuff' },
      { 'x-svc-wallet': '0x1111111111111111111111111111111111111111', 'x-svc-trace': 'n', cookie: 'a=b' },
    );
    expect(res.statusCode).toBe(200);
    const seen = server.received.at(-1);
    expect(seen?.headers['x-svc-call-id']).toBe(res.json().svc.call_id);
    expect(
      verifyProviderSignature(
        secret,
        seen?.headers['x-svc-provider-signature'] as string,
        seen?.headers['x-svc-timestamp'] as string,
        seen?.body ?? '',
      ),
    ).toBe(true);
    const forwarded = Object.keys(seen?.headers ?? {});
    expect(forwarded.filter((h) => h.startsWith('x-svc-')).sort()).toEqual([
      'x-svc-call-id',
      'x-svc-provider-signature',
      'x-svc-timestamp',
    ]);
    expect(forwarded).not.toContain('authorization');
    expect(forwarded).not.toContain('cookie');
    expect(JSON.stringify(seen?.headers)).not.toContain(acc.apiKey);
  });

  it('sends GET parameters as a signed query string', async () => {
    const acc = await newFundedAccount();
    const res = await execute(t, acc.apiKey, providerId, 'lookup', { q: 'a b&c' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.query).toBe('q=a+b%26c');
    expect(res.json().svc.charged_usdc).toBe('0.002000');
    const seen = server.received.at(-1);
    expect(seen?.method).toBe('GET');
    expect(
      verifyProviderSignature(
        secret,
        seen?.headers['x-svc-provider-signature'] as string,
        seen?.headers['x-svc-timestamp'] as string,
        seen?.query ?? '',
      ),
    ).toBe(true);
  });

  it('refuses a body that does not match the endpoint schema, listing every field, without charging', async () => {
    const acc = await newFundedAccount();
    const res = await execute(t, acc.apiKey, providerId, 'echo', { count: 'two', extra: true });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('SVC-EXE-003');
    const paths = error.details.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['count', 'extra', 'text']);
    const notObject = await execute(t, acc.apiKey, providerId, 'echo', [1, 2]);
    expect(notObject.json().error.code).toBe('SVC-EXE-003');
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
  });

  it('answers 404 SVC-EXE-001 / SVC-EXE-002 for an unknown provider or endpoint', async () => {
    const acc = await newFundedAccount();
    const p = await execute(t, acc.apiKey, 'no-such-provider', 'echo', {});
    expect(p.statusCode).toBe(404);
    expect(p.json().error.code).toBe('SVC-EXE-001');
    const e = await execute(t, acc.apiKey, providerId, 'no-such-endpoint', {});
    expect(e.statusCode).toBe(404);
    expect(e.json().error.code).toBe('SVC-EXE-002');
  });

  it('requires authentication', async () => {
    const res = await t.inject({
      method: 'POST',
      url: `/v1/execute/${providerId}/echo`,
      payload: { text: 'x' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('SVC-AUTH-001');
  });

  it('charges a provider 4xx and returns its body with its status', async () => {
    const acc = await newFundedAccount();
    const res = await execute(t, acc.apiKey, providerId, 'bad-request', {});
    expect(res.statusCode).toBe(400);
    expect(res.json().data).toEqual({ error: 'bad input', hint: 'check the parameters' });
    expect(res.json().svc.charged_usdc).toBe('0.010000');
    expect(await balanceCredits(t, acc.accountId)).toBe(990_000n);
    await expectInvariants(t);
  });

  it.each([
    ['fail', 502, 'SVC-EXE-004', 'provider_error', 'provider_5xx'],
    ['hang', 504, 'SVC-EXE-005', 'timeout', 'timeout'],
    ['close', 502, 'SVC-EXE-004', 'provider_error', 'connection'],
    ['garbage', 502, 'SVC-EXE-004', 'provider_error', 'bad_response'],
    ['oversized', 502, 'SVC-EXE-004', 'provider_error', 'bad_response'],
  ])('refunds and logs a provider that answers %s', async (slug, status, code, outcome, reason) => {
    const acc = await newFundedAccount();
    const res = await execute(t, acc.apiKey, providerId, slug, {});
    expect(res.statusCode).toBe(status);
    const { error } = res.json();
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject({ call_id: expect.any(String), refunded_usdc: '0.010000', reason });
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
    const [call] = await rows<{ status: string; refunded: boolean; refund_reason: string }>(
      t.deps.db.orm,
      sql`SELECT status, refunded, refund_reason FROM calls WHERE id = ${error.details.call_id}`,
    );
    expect(call).toEqual({ status: outcome, refunded: true, refund_reason: reason });
    const entries = await rows<{ type: string; amount_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT type, amount_credits FROM ledger_entries WHERE call_id = ${error.details.call_id} ORDER BY seq`,
    );
    expect(entries).toEqual([
      { type: 'debit', amount_credits: -10_000n },
      { type: 'refund', amount_credits: 10_000n },
    ]);
    await expectInvariants(t);
  });

  it('refunds when the provider cannot be reached at all', async () => {
    const gone = await startProviderServer();
    const p = await registerProvider(t, gone.url, [{ slug: 'echo' }]);
    await gone.close();
    const acc = await newFundedAccount();
    const res = await execute(t, acc.apiKey, p.providerId, 'echo', {});
    expect(res.statusCode).toBe(502);
    expect(res.json().error.details.reason).toBe('connection');
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
    await expectInvariants(t);
  });

  it('refuses an insufficient balance with 402 SVC-PAY-001 (shape A) before calling the provider', async () => {
    const acc = await newFundedAccount('1');
    const before = server.hits('/echo');
    const res = await execute(t, acc.apiKey, providerId, 'pricey', { text: 'x' });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: {
        code: 'SVC-PAY-001',
        message: expect.any(String),
        details: { required_usdc: '5.000000', available_usdc: '1.000000' },
      },
    });
    expect(server.hits('/echo')).toBe(before);
  });

  it('refuses calls over the per-call and daily limits with 402 SVC-CREDIT-002 (shape B)', async () => {
    const acc = await newFundedAccount('10');
    await t.deps.db.orm.execute(
      sql`UPDATE accounts SET per_call_limit_credits = 1000000, daily_limit_credits = 25000 WHERE id = ${acc.accountId}`,
    );
    const perCall = await execute(t, acc.apiKey, providerId, 'pricey', { text: 'x' });
    expect(perCall.statusCode).toBe(402);
    expect(perCall.json()).toEqual({
      statusCode: 402,
      code: 'SVC-CREDIT-002',
      error: 'Payment Required',
      message: expect.any(String),
      details: {
        limitType: 'per_call',
        limitCredits: '1000000',
        currentDailySpend: '0',
        requestedCredits: '5000000',
      },
    });
    expect((await execute(t, acc.apiKey, providerId, 'echo', { text: 'a' })).statusCode).toBe(200);
    // A refunded call gives its share of the daily limit back.
    expect((await execute(t, acc.apiKey, providerId, 'fail', {})).statusCode).toBe(502);
    expect((await execute(t, acc.apiKey, providerId, 'echo', { text: 'b' })).statusCode).toBe(200);
    const daily = await execute(t, acc.apiKey, providerId, 'echo', { text: 'c' });
    expect(daily.statusCode).toBe(402);
    expect(daily.json().details).toEqual({
      limitType: 'daily',
      limitCredits: '25000',
      currentDailySpend: '20000',
      requestedCredits: '10000',
    });
    expect((await execute(t, acc.apiKey, providerId, 'lookup', { q: 'x' })).statusCode).toBe(200);
    await expectInvariants(t);
  });

  it('replays an Idempotency-Key: same answer, one charge; another body is 422 SVC-VAL-004', async () => {
    const acc = await newFundedAccount();
    const headers = { 'idempotency-key': 'order-42' };
    const first = await execute(t, acc.apiKey, providerId, 'echo', { text: 'once' }, headers);
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await execute(t, acc.apiKey, providerId, 'echo', { text: 'once' }, headers);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await balanceCredits(t, acc.accountId)).toBe(990_000n);
    const other = await execute(t, acc.apiKey, providerId, 'echo', { text: 'twice' }, headers);
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('SVC-VAL-004');
    // Scoped to the account: another account may use the same key.
    const acc2 = await newFundedAccount();
    const theirs = await execute(t, acc2.apiKey, providerId, 'echo', { text: 'twice' }, headers);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    // A refunded failure replays as the same error, still refunded once.
    const failed = await execute(t, acc.apiKey, providerId, 'fail', {}, { 'idempotency-key': 'f-1' });
    const failedAgain = await execute(t, acc.apiKey, providerId, 'fail', {}, { 'idempotency-key': 'f-1' });
    expect(failedAgain.statusCode).toBe(502);
    expect(failedAgain.json()).toEqual(failed.json());
    const tooLong = await execute(
      t,
      acc.apiKey,
      providerId,
      'echo',
      { text: 'x' },
      { 'idempotency-key': 'k'.repeat(256) },
    );
    expect(tooLong.statusCode).toBe(400);
    await expectInvariants(t);
  });

  it('sees catalogue changes at once (cache invalidated by catalog.changed)', async () => {
    const acc = await newFundedAccount();
    const p = await registerProvider(t, server.url, [{ slug: 'echo', price_usdc: '0.01' }]);
    expect((await execute(t, acc.apiKey, p.providerId, 'echo', {})).json().svc.charged_usdc).toBe('0.010000');
    await t.deps.db.orm.execute(
      sql`UPDATE endpoints SET price_credits = 20000 WHERE provider_id = ${p.providerId} AND slug = 'echo'`,
    );
    t.deps.events.emit('catalog.changed', { providerId: p.providerId });
    expect((await execute(t, acc.apiKey, p.providerId, 'echo', {})).json().svc.charged_usdc).toBe('0.020000');
    await t.deps.db.orm.execute(sql`DELETE FROM providers WHERE id = ${p.providerId}`);
    t.deps.events.emit('catalog.changed', { providerId: p.providerId });
    expect((await execute(t, acc.apiKey, p.providerId, 'echo', {})).json().error.code).toBe('SVC-EXE-001');
  });
});
