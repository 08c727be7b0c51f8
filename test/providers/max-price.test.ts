// X-Svc-Max-Price-Usdc: a caller's guard against paying more than the price it saw.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { balanceCredits, execute, expectInvariants, fund } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { asAccount, echoListing } from './helpers.js';

let t: TestApp;
let server: ProviderServer;
let caller: { accountId: string; apiKey: string };
beforeAll(async () => {
  t = await createTestApp();
  server = await startProviderServer();
  const owner = await t.createAccount();
  caller = await t.createAccount();
  await fund(t, caller.accountId, '1');
  const res = await asAccount(
    t,
    owner.apiKey,
    'POST',
    '/v1/provider/listings',
    echoListing('priced', server.url, '0.02'),
  );
  expect(res.statusCode).toBe(201);
});
afterAll(async () => {
  await t.close();
  await server.close();
});

const withMax = (max: string) =>
  execute(t, caller.apiKey, 'priced', 'echo', { text: 'x' }, { 'x-svc-max-price-usdc': max });

describe('X-Svc-Max-Price-Usdc on execute', () => {
  it('refuses a price above the header with 409 SVC-EXE-006: nothing charged, provider not reached', async () => {
    const before = await balanceCredits(t, caller.accountId);
    const res = await withMax('0.019999');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: {
        code: 'SVC-EXE-006',
        message: expect.stringContaining('0.02'),
        details: { price_usdc: '0.02', max_price_usdc: '0.019999' },
      },
    });
    expect(await balanceCredits(t, caller.accountId)).toBe(before);
    expect(server.hits('/echo')).toBe(0);
    const calls = await one<{ n: number }>(
      t.deps.db.orm,
      sql`SELECT count(*)::int AS n FROM calls WHERE account_id = ${caller.accountId}`,
    );
    expect(calls?.n).toBe(0);
  });

  it('answers 400 for a malformed header, charging nothing', async () => {
    const before = await balanceCredits(t, caller.accountId);
    for (const bad of ['abc', '-1', '0.0000001', '1e3', '']) {
      const res = await withMax(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'SVC-VAL-001',
        details: { errors: [{ path: 'x-svc-max-price-usdc', message: expect.any(String) }] },
      });
    }
    expect(await balanceCredits(t, caller.accountId)).toBe(before);
    expect(server.hits('/echo')).toBe(0);
  });

  it('charges the current price when it is at or below the header', async () => {
    const before = await balanceCredits(t, caller.accountId);
    expect((await withMax('0.02')).statusCode).toBe(200);
    expect((await withMax('1')).statusCode).toBe(200);
    expect(await balanceCredits(t, caller.accountId)).toBe(before - 40_000n);
    expect(server.hits('/echo')).toBe(2);
    await expectInvariants(t);
  });

  it('guards the x402 path too, before any payment is asked for', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/x402/priced/echo',
      headers: { 'x-svc-max-price-usdc': '0.01' },
      payload: { text: 'x' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('SVC-EXE-006');
    expect(server.hits('/echo')).toBe(2);
  });
});
