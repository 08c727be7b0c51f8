// The one debit rule, seen through every path: the same calls on identically set-up accounts must be
// admitted or refused alike whether they are debited one by one (debitForCallQuick), as one account's
// batch (debitBatchForAccount) or grouped with other accounts (debitAcrossAccounts), and the explainer
// must name the condition that refused them. Includes batches that straddle midnight UTC: each call's
// daily window is its own day.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { debitBatchForAccount } from '../../src/modules/ledger/batch-debit.js';
import {
  type DebitForCallInput,
  type DebitResult,
  debitForCallQuick,
  explainRefusal,
} from '../../src/modules/ledger/calls.js';
import { debitAcrossAccounts } from '../../src/modules/ledger/multi-debit.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const BEFORE_MIDNIGHT = new Date('2026-03-01T23:59:59.500Z');
const AFTER_MIDNIGHT = new Date('2026-03-02T00:00:00.250Z');

interface Scenario {
  name: string;
  /** Columns of the accounts row set before the calls (balance is always 1 USDC = 1,000,000 credits). */
  setup: {
    per_call?: bigint;
    daily?: bigint;
    /** Already spent on daily_day. */
    spent?: bigint;
    daily_day?: string;
    threshold?: bigint;
    status?: string;
    revoke_key?: boolean;
  };
  calls: { price: bigint; at: Date }[];
  /** What explainRefusal says about the first refused call (undefined when all are admitted). */
  refusal?: string;
}

const at = (price: bigint, when: Date) => ({ price, at: when });

const SCENARIOS: Scenario[] = [
  { name: 'all fit', setup: {}, calls: [at(100n, AFTER_MIDNIGHT), at(200n, AFTER_MIDNIGHT)] },
  {
    name: 'balance runs out (reaching zero is left to the alerting path)',
    setup: {},
    calls: [at(600_000n, AFTER_MIDNIGHT), at(400_000n, AFTER_MIDNIGHT), at(1n, AFTER_MIDNIGHT)],
    refusal: 'none',
  },
  {
    name: 'balance short',
    setup: {},
    calls: [at(600_000n, AFTER_MIDNIGHT), at(500_000n, AFTER_MIDNIGHT)],
    refusal: 'balance',
  },
  {
    name: 'per-call limit',
    setup: { per_call: 1000n },
    calls: [at(1000n, AFTER_MIDNIGHT), at(1001n, AFTER_MIDNIGHT)],
    refusal: 'per_call',
  },
  {
    name: 'daily limit within one day',
    setup: { daily: 2500n },
    calls: [at(1000n, AFTER_MIDNIGHT), at(1000n, AFTER_MIDNIGHT), at(1000n, AFTER_MIDNIGHT)],
    refusal: 'daily',
  },
  {
    // Yesterday's 2,000 still count for the call before midnight, not for those after it: a batch judged
    // on its latest timestamp would wrongly admit the first call or refuse the third.
    name: 'batch straddling midnight, each call in its own window',
    setup: { daily: 2500n, spent: 2000n, daily_day: '2026-03-01' },
    calls: [at(400n, BEFORE_MIDNIGHT), at(2000n, AFTER_MIDNIGHT), at(400n, AFTER_MIDNIGHT)],
  },
  {
    name: 'batch straddling midnight, refused before it',
    setup: { daily: 2500n, spent: 2400n, daily_day: '2026-03-01' },
    calls: [at(200n, BEFORE_MIDNIGHT), at(300n, AFTER_MIDNIGHT)],
    refusal: 'daily',
  },
  {
    name: 'a counter of an earlier day does not count',
    setup: { daily: 2500n, spent: 2500n, daily_day: '2026-02-27' },
    calls: [at(2500n, BEFORE_MIDNIGHT)],
  },
  {
    name: 'low-balance threshold would be crossed (alerting path)',
    setup: { threshold: 999_500n },
    calls: [at(400n, AFTER_MIDNIGHT), at(400n, AFTER_MIDNIGHT)],
    refusal: 'none',
  },
  {
    name: 'suspended account',
    setup: { status: 'suspended' },
    calls: [at(1n, AFTER_MIDNIGHT)],
    refusal: 'inactive',
  },
  {
    name: 'revoked key',
    setup: { revoke_key: true },
    calls: [at(1n, AFTER_MIDNIGHT)],
    refusal: 'revoked_key',
  },
];

let n = 0;
async function prepare(s: Scenario) {
  const acc = await t.createAccount();
  await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/credits`, {
    amount_usdc: '1',
    description: 'seed',
  });
  const u = s.setup;
  await t.deps.db.orm.execute(
    sql`UPDATE accounts SET per_call_limit_credits = ${u.per_call ?? null}, daily_limit_credits = ${u.daily ?? null},
          daily_spent_credits = ${u.spent ?? 0n}, daily_spent_day = ${u.daily_day ?? '2026-01-01'}::date,
          low_balance_threshold_credits = ${u.threshold ?? null}, status = ${u.status ?? 'active'}
        WHERE id = ${acc.accountId}`,
  );
  if (u.revoke_key) {
    await t.deps.db.orm.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${acc.keyId}`);
  }
  const inputs: DebitForCallInput[] = s.calls.map((c) => ({
    callId: `call_rule_${++n}`,
    accountId: acc.accountId,
    apiKeyId: acc.keyId,
    providerId: 'p',
    endpointSlug: 'e',
    priceCredits: c.price,
    now: c.at,
    deadlineAt: new Date(c.at.getTime() + 1000),
    idempotencyKey: null,
    requestHash: null,
  }));
  return { accountId: acc.accountId, inputs };
}

/** What a user would check afterwards: the balances after each call and the account's counters. */
async function outcome(accountId: string, results: (DebitResult | undefined)[]) {
  const account = await one<Record<string, unknown>>(
    t.deps.db.orm,
    sql`SELECT balance_credits, total_spent_credits, successful_payments, daily_spent_credits,
               daily_spent_day::text AS daily_spent_day,
               (SELECT count(*) FROM ledger_entries e WHERE e.account_id = a.id AND e.type = 'debit') AS debits,
               (SELECT count(*) FROM calls c WHERE c.account_id = a.id) AS calls
        FROM accounts a WHERE id = ${accountId}`,
  );
  return { balances: results.map((r) => r?.balanceAfter), account };
}

/** One by one, stopping at the first refusal (the batch paths leave the rest to be retried alone). */
async function oneByOne(inputs: DebitForCallInput[]) {
  const results: (DebitResult | undefined)[] = inputs.map(() => undefined);
  for (const [i, input] of inputs.entries()) {
    results[i] = await debitForCallQuick(t.deps.db, input);
    if (!results[i]) break;
  }
  return results;
}

describe('one debit rule for the single, batched and grouped paths', () => {
  it('admits and refuses the same calls, with the same balances and daily counters', async () => {
    const single = await Promise.all(SCENARIOS.map(prepare));
    const batched = await Promise.all(SCENARIOS.map(prepare));
    const grouped = await Promise.all(SCENARIOS.map(prepare));

    const singleResults = [];
    for (const s of single) singleResults.push(await oneByOne(s.inputs));
    const batchedResults = [];
    for (const s of batched)
      batchedResults.push(await debitBatchForAccount(t.deps.db, s.accountId, s.inputs));
    // Grouped: the i-th call of every scenario (distinct accounts) in one statement, scenario by scenario
    // stopping at its first refusal.
    const groupedResults: (DebitResult | undefined)[][] = grouped.map((s) => s.inputs.map(() => undefined));
    const stopped = new Set<number>();
    for (let i = 0; i < Math.max(...grouped.map((s) => s.inputs.length)); i++) {
      const members = grouped
        .map((_scenario, k) => k)
        .filter((k) => !stopped.has(k) && i < grouped[k]!.inputs.length);
      const results = await debitAcrossAccounts(
        t.deps.db,
        members.map((k) => grouped[k]!.inputs[i]!),
      );
      members.forEach((k, j) => {
        groupedResults[k]![i] = results[j];
        if (!results[j]) stopped.add(k);
      });
    }

    for (const [k, s] of SCENARIOS.entries()) {
      const expected = await outcome(single[k]!.accountId, singleResults[k]!);
      expect(await outcome(batched[k]!.accountId, batchedResults[k]!), `${s.name}: batched`).toEqual(
        expected,
      );
      expect(await outcome(grouped[k]!.accountId, groupedResults[k]!), `${s.name}: grouped`).toEqual(
        expected,
      );

      const refusedAt = singleResults[k]!.findIndex((r) => r === undefined);
      if (s.refusal === undefined) {
        expect(refusedAt, `${s.name}: all admitted`).toBe(-1);
        continue;
      }
      const refused = single[k]!.inputs[refusedAt]!;
      const why = await explainRefusal(
        t.deps.db.orm,
        refused.accountId,
        refused.priceCredits,
        refused.now,
        refused.apiKeyId,
      );
      expect(why.kind, `${s.name}: explained`).toBe(s.refusal);
    }
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });

  it('straddling midnight: the daily counter ends on the last call’s day with only that day’s spend', async () => {
    const s = await prepare(SCENARIOS[5]!);
    const results = await debitBatchForAccount(t.deps.db, s.accountId, s.inputs);
    expect(results.map((r) => r?.balanceAfter)).toEqual([999_600n, 997_600n, 997_200n]);
    const account = await one<{ daily_spent_credits: bigint; daily_spent_day: string }>(
      t.deps.db.orm,
      sql`SELECT daily_spent_credits, daily_spent_day::text AS daily_spent_day FROM accounts WHERE id = ${s.accountId}`,
    );
    expect(account).toEqual({ daily_spent_credits: 2400n, daily_spent_day: '2026-03-02' });
  });
});
