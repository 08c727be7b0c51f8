// The invariant checker must catch what it promises to catch: each rule is broken on purpose here.
import { sql } from 'drizzle-orm';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
afterAll(async () => {
  await t?.close();
});

async function freshAccount(credits: bigint) {
  t ??= await createTestApp();
  const acc = await t.createAccount();
  await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/credits`, {
    amount_usdc: (Number(credits) / 1e6).toString(),
    description: 'seed',
  });
  return acc.accountId;
}

async function violations() {
  const found = await checkLedgerInvariants((t as TestApp).deps.db.orm);
  return found.map((v) => v.rule);
}

async function addCall(
  accountId: string,
  id: string,
  status: string,
  refunded: boolean,
  debit: boolean,
  refund: boolean,
) {
  const db = (t as TestApp).deps.db.orm;
  await db.execute(
    sql`INSERT INTO calls (id, account_id, provider_id, endpoint_slug, price_credits, status, refunded, deadline_at)
        VALUES (${id}, ${accountId}, 'p', 'e', 100, ${status}, ${refunded}, now())`,
  );
  if (debit) {
    await db.execute(
      sql`UPDATE accounts SET balance_credits = balance_credits - 100, total_spent_credits = total_spent_credits + 100 WHERE id = ${accountId}`,
    );
    await db.execute(
      sql`INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, call_id, idempotency_key)
          SELECT ${`txn_d_${id}`}, id, 'debit', -100, balance_credits, ${id}, ${`call:${id}`} FROM accounts WHERE id = ${accountId}`,
    );
  }
  if (refund) {
    await db.execute(
      sql`UPDATE accounts SET balance_credits = balance_credits + 100, total_spent_credits = total_spent_credits - 100 WHERE id = ${accountId}`,
    );
    await db.execute(
      sql`INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, call_id, idempotency_key)
          SELECT ${`txn_r_${id}`}, id, 'refund', 100, balance_credits, ${id}, ${`refund:${id}`} FROM accounts WHERE id = ${accountId}`,
    );
  }
}

describe('checkLedgerInvariants', () => {
  beforeEach(async () => {
    if (t)
      await t.deps.db.orm.execute(
        sql`TRUNCATE calls, ledger_entries, api_keys, email_outbox, accounts CASCADE`,
      );
  });

  it('finds nothing wrong in a consistent ledger', async () => {
    const a = await freshAccount(1000n);
    await addCall(a, 'call_ok', 'success', false, true, false);
    await addCall(a, 'call_refunded', 'provider_error', true, true, true);
    expect(await violations()).toEqual([]);
  });

  it('catches a balance that is not the sum of its entries', async () => {
    const a = await freshAccount(1000n);
    await (t as TestApp).deps.db.orm.execute(sql`UPDATE accounts SET balance_credits = 5 WHERE id = ${a}`);
    expect(await violations()).toContain('balance = sum of entries');
  });

  it('catches a call without its debit', async () => {
    const a = await freshAccount(1000n);
    await addCall(a, 'call_free', 'success', false, false, false);
    expect(await violations()).toContain('every call has exactly one debit');
  });

  it('catches a refund of a call that was not a provider error or timeout', async () => {
    const a = await freshAccount(1000n);
    await addCall(a, 'call_bad_refund', 'success', true, true, true);
    expect(await violations()).toContain('no refund without a provider_error/timeout outcome');
  });

  it('catches a refund the call log does not know about', async () => {
    const a = await freshAccount(1000n);
    await addCall(a, 'call_silent', 'provider_error', false, true, true);
    expect(await violations()).toContain('refunded flag matches refund entry');
  });
});
