import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const credit = (accountId: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.inject({
    method: 'POST',
    url: `/v1/admin/accounts/${accountId}/credits`,
    headers: { authorization: 'Bearer test-admin-token-0123456789abcdef', ...headers },
    payload: payload as object,
  });

describe('POST /v1/admin/accounts/:accountId/credits', () => {
  it('writes an admin_credit entry and answers the ledger transaction', async () => {
    const acc = await t.createAccount();
    const res = await credit(acc.accountId, { amount_usdc: '12.5', description: 'welcome bonus' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({
      id: expect.stringMatching(/^txn_/),
      type: 'admin_credit',
      amountCredits: '12500000',
      amountUsdc: '12.500000',
      balanceAfter: '12500000',
      description: 'welcome bonus',
      referenceType: 'admin',
      referenceId: null,
      providerId: null,
      capabilityId: null,
      createdAt: expect.any(String),
    });
    const second = await credit(acc.accountId, { amount_usdc: '0.000001', description: 'one credit' });
    expect(second.json().data.balanceAfter).toBe('12500001');
    const [a] = await rows<{ balance_credits: bigint; total_deposited_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT balance_credits, total_deposited_credits FROM accounts WHERE id = ${acc.accountId}`,
    );
    expect(a).toEqual({ balance_credits: 12_500_001n, total_deposited_credits: 12_500_001n });
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });

  it.each([['0'], ['0.0'], ['-1'], ['1.0000001'], ['1e3'], ['abc'], [''], ['01.5']])(
    'refuses amount_usdc %j with SVC-VAL-001',
    async (amount) => {
      const acc = await t.createAccount();
      const res = await credit(acc.accountId, { amount_usdc: amount, description: 'x' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('SVC-VAL-001');
    },
  );

  it('refuses a numeric amount and unknown fields', async () => {
    const acc = await t.createAccount();
    const res = await credit(acc.accountId, { amount_usdc: 5, description: 'x', extra: 1 });
    expect(res.statusCode).toBe(400);
    const paths = res
      .json()
      .error.details.errors.map((e: { path: string }) => e.path)
      .sort();
    expect(paths).toEqual(['amount_usdc', 'extra']);
  });

  it('answers 404 SVC-AUTH-006 for an unknown account', async () => {
    const res = await credit('acc_doesnotexist', { amount_usdc: '1', description: 'x' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('SVC-AUTH-006');
  });

  it('requires the admin token', async () => {
    const acc = await t.createAccount();
    const res = await t.inject({
      method: 'POST',
      url: `/v1/admin/accounts/${acc.accountId}/credits`,
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { amount_usdc: '1', description: 'x' },
    });
    expect(res.statusCode).toBe(401);
  });

  it('credits once per Idempotency-Key, even when retried at once', async () => {
    const acc = await t.createAccount();
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        credit(
          acc.accountId,
          { amount_usdc: '3', description: 'retry me' },
          { 'idempotency-key': 'grant-1' },
        ),
      ),
    );
    expect(results.every((r) => r.statusCode === 201)).toBe(true);
    expect(new Set(results.map((r) => r.json().data.id)).size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    const [a] = await rows<{ balance_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT balance_credits FROM accounts WHERE id = ${acc.accountId}`,
    );
    expect(a?.balance_credits).toBe(3_000_000n);
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });

  it('answers 422 SVC-VAL-004 when the Idempotency-Key is reused with another body, as execute does', async () => {
    const acc = await t.createAccount();
    const key = { 'idempotency-key': 'grant-2' };
    const first = await credit(acc.accountId, { amount_usdc: '3', description: 'once' }, key);
    expect(first.statusCode).toBe(201);
    // Same amount written another way is the same request.
    const same = await credit(acc.accountId, { description: 'once', amount_usdc: '3.000000' }, key);
    expect(same.statusCode).toBe(201);
    expect(same.headers['idempotent-replayed']).toBe('true');
    for (const other of [
      { amount_usdc: '300', description: 'once' },
      { amount_usdc: '3', description: 'twice' },
    ]) {
      const res = await credit(acc.accountId, other, key);
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('SVC-VAL-004');
    }
    const [a] = await rows<{ balance_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT balance_credits FROM accounts WHERE id = ${acc.accountId}`,
    );
    expect(a?.balance_credits).toBe(3_000_000n);
  });
});
