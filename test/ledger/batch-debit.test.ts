// Several debits of one account in one statement: the longest admissible prefix is debited, in order,
// with chained balances; the rest is left for one-by-one retries.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { debitBatchForAccount } from '../../src/modules/ledger/batch-debit.js';
import type { DebitForCallInput } from '../../src/modules/ledger/calls.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

let n = 0;
function input(accountId: string, price: bigint): DebitForCallInput {
  const now = new Date();
  return {
    callId: `call_batch_${++n}`,
    accountId,
    apiKeyId: null,
    providerId: 'p',
    endpointSlug: 'e',
    priceCredits: price,
    now,
    deadlineAt: new Date(now.getTime() + 1000),
    idempotencyKey: null,
    requestHash: null,
  };
}

async function account(usdc: string) {
  const acc = await t.createAccount();
  await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/credits`, {
    amount_usdc: usdc,
    description: 'seed',
  });
  return acc.accountId;
}

describe('debitBatchForAccount', () => {
  it('debits every call in order with chained balances when all fit', async () => {
    const a = await account('1');
    const results = await debitBatchForAccount(t.deps.db, a, [
      input(a, 100n),
      input(a, 200n),
      input(a, 300n),
    ]);
    expect(results.map((r) => r?.balanceAfter)).toEqual([999_900n, 999_700n, 999_400n]);
    expect(results.every((r) => r?.successfulPayments === 3n)).toBe(true);
    const entries = await rows<{ balance_after: bigint }>(
      t.deps.db.orm,
      sql`SELECT balance_after FROM ledger_entries WHERE account_id = ${a} AND type = 'debit' ORDER BY seq`,
    );
    expect(entries.map((e) => e.balance_after)).toEqual([999_900n, 999_700n, 999_400n]);
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });

  it('stops at the first call that would not fit (balance may not reach zero here)', async () => {
    const a = await account('0.001');
    const results = await debitBatchForAccount(t.deps.db, a, [
      input(a, 400n),
      input(a, 500n),
      input(a, 100n),
      input(a, 1n),
    ]);
    // 400 + 500 = 900 < 1000; + 100 would reach zero (left to the transactional path), so the prefix ends.
    expect(results.map((r) => r?.balanceAfter)).toEqual([600n, 100n, undefined, undefined]);
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });

  it('respects per-call and daily limits and the low-balance threshold as a prefix', async () => {
    const a = await account('1');
    await t.deps.db.orm.execute(
      sql`UPDATE accounts SET per_call_limit_credits = 1000, daily_limit_credits = 2500 WHERE id = ${a}`,
    );
    const r1 = await debitBatchForAccount(t.deps.db, a, [input(a, 1000n), input(a, 2000n), input(a, 10n)]);
    expect(r1.map((r) => r?.balanceAfter)).toEqual([999_000n, undefined, undefined]);
    const r2 = await debitBatchForAccount(t.deps.db, a, [input(a, 1000n), input(a, 1000n)]);
    expect(r2.map((r) => r?.balanceAfter)).toEqual([998_000n, undefined]);
    const [acc] = await rows<{ daily_spent_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT daily_spent_credits FROM accounts WHERE id = ${a}`,
    );
    expect(acc?.daily_spent_credits).toBe(2000n);
    await t.deps.db.orm.execute(
      sql`UPDATE accounts SET daily_limit_credits = NULL, low_balance_threshold_credits = 997500 WHERE id = ${a}`,
    );
    const r3 = await debitBatchForAccount(t.deps.db, a, [input(a, 400n), input(a, 400n)]);
    expect(r3.map((r) => r?.balanceAfter)).toEqual([997_600n, undefined]);
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });

  it('debits nothing for a suspended or unknown account', async () => {
    const a = await account('1');
    await t.deps.db.orm.execute(sql`UPDATE accounts SET status = 'suspended' WHERE id = ${a}`);
    expect(await debitBatchForAccount(t.deps.db, a, [input(a, 1n), input(a, 1n)])).toEqual([
      undefined,
      undefined,
    ]);
    expect(await debitBatchForAccount(t.deps.db, 'acc_missing', [input('acc_missing', 1n)])).toEqual([
      undefined,
    ]);
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });
});
