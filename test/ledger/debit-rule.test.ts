// The one debit rule, seen through every path: the same calls on identically set-up accounts must be
// admitted or refused alike whether they are debited one by one (debitForCallQuick), as one account's
// batch (debitBatchForAccount) or grouped with other accounts (debitAcrossAccounts), and the explainer
// must name the condition that refused them. Includes batches that straddle midnight UTC: each call's
// daily window is its own day. Calls through an agent key (a key with a spending policy): the unlocked
// paths hand every one of them to the locked path untouched, and the locked path and the explainer agree on
// the key's expiry, allow-lists and per-call, daily and total budgets.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { debitBatchForAccount } from '../../src/modules/ledger/batch-debit.js';
import {
  type DebitForCallInput,
  type DebitResult,
  debitForCall,
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
    /** Gives the call's key a spending policy (columns of api_keys; has_policy is set). */
    key?: {
      per_call?: bigint;
      daily?: bigint;
      total?: bigint;
      /** Already spent through the key on spent_day, and in total. */
      spent_today?: bigint;
      spent_day?: string;
      spent_total?: bigint;
      providers?: string[];
      expires_at?: string;
    };
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
  if (u.key) {
    const k = u.key;
    await t.deps.db.orm.execute(
      sql`UPDATE api_keys SET has_policy = true, per_call_max_credits = ${k.per_call ?? null},
            daily_limit_credits = ${k.daily ?? null}, total_limit_credits = ${k.total ?? null},
            spent_today_credits = ${k.spent_today ?? 0n}, spent_day = ${k.spent_day ?? '2026-01-01'}::date,
            spent_total_credits = ${k.spent_total ?? 0n},
            allowed_providers = ${
              k.providers
                ? sql`ARRAY[${sql.join(
                    k.providers.map((p) => sql`${p}`),
                    sql`, `,
                  )}]::text[]`
                : null
            },
            expires_at = ${k.expires_at ?? null}::timestamptz
          WHERE id = ${acc.keyId}`,
    );
  }
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
               (SELECT count(*) FROM calls c WHERE c.account_id = a.id) AS calls,
               (SELECT json_agg(json_build_array(k.spent_today_credits::text, k.spent_day::text,
                                                 k.spent_total_credits::text))
                FROM api_keys k WHERE k.account_id = a.id) AS key_counters
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

/** The first refused call (if the scenario expects one) is explained as the scenario says. */
async function expectExplained(
  s: Scenario,
  inputs: DebitForCallInput[],
  results: (DebitResult | undefined)[],
) {
  const refusedAt = results.indexOf(undefined);
  if (s.refusal === undefined) {
    expect(refusedAt, `${s.name}: all admitted`).toBe(-1);
    return;
  }
  expect(refusedAt, `${s.name}: refused`).toBeGreaterThanOrEqual(0);
  const refused = inputs[refusedAt] as DebitForCallInput;
  const why = await explainRefusal(
    t.deps.db.orm,
    refused.accountId,
    refused.priceCredits,
    refused.now,
    refused.apiKeyId,
    refused.providerId,
  );
  expect(why.kind, `${s.name}: explained`).toBe(s.refusal);
}

const KEY_SCENARIOS: Scenario[] = [
  {
    name: 'agent key, empty policy: admitted',
    setup: { key: {} },
    calls: [at(100n, AFTER_MIDNIGHT), at(200n, AFTER_MIDNIGHT)],
  },
  {
    name: 'key per-call maximum',
    setup: { key: { per_call: 1000n } },
    calls: [at(1000n, AFTER_MIDNIGHT), at(1001n, AFTER_MIDNIGHT)],
    refusal: 'key_per_call',
  },
  {
    name: 'key daily budget within one day',
    setup: { key: { daily: 2500n } },
    calls: [at(1000n, AFTER_MIDNIGHT), at(1000n, AFTER_MIDNIGHT), at(1000n, AFTER_MIDNIGHT)],
    refusal: 'key_daily',
  },
  {
    name: "key daily budget: yesterday's spend counts before midnight only",
    setup: { key: { daily: 2500n, spent_today: 2400n, spent_day: '2026-03-01' } },
    calls: [at(2400n, AFTER_MIDNIGHT), at(200n, AFTER_MIDNIGHT)],
    refusal: 'key_daily',
  },
  {
    name: 'key daily budget before midnight',
    setup: { key: { daily: 2500n, spent_today: 2400n, spent_day: '2026-03-01' } },
    calls: [at(200n, BEFORE_MIDNIGHT)],
    refusal: 'key_daily',
  },
  {
    name: 'key total budget over days',
    setup: { key: { total: 2500n, spent_total: 2000n, spent_today: 2000n, spent_day: '2026-02-27' } },
    calls: [at(400n, AFTER_MIDNIGHT), at(200n, AFTER_MIDNIGHT)],
    refusal: 'key_total',
  },
  {
    name: 'the account daily limit is judged before the key daily budget',
    setup: { daily: 1500n, key: { daily: 1500n } },
    calls: [at(1000n, AFTER_MIDNIGHT), at(1000n, AFTER_MIDNIGHT)],
    refusal: 'daily',
  },
  {
    name: 'key per-call maximum is judged before the account daily limit',
    setup: { daily: 500n, key: { per_call: 400n } },
    calls: [at(450n, AFTER_MIDNIGHT)],
    refusal: 'key_per_call',
  },
  {
    name: 'a key daily budget above the balance: the balance refuses',
    setup: { key: { daily: 2_000_000n } },
    calls: [at(900_000n, AFTER_MIDNIGHT), at(200_000n, AFTER_MIDNIGHT), at(1_000_000n, AFTER_MIDNIGHT)],
    refusal: 'balance',
  },
  {
    name: 'provider outside the allow-list',
    setup: { key: { providers: ['other'] } },
    calls: [at(1n, AFTER_MIDNIGHT)],
    refusal: 'key_not_allowed',
  },
  {
    name: 'key expired to the second',
    setup: { key: { expires_at: '2026-03-02T00:00:00.250Z' } },
    calls: [at(1n, AFTER_MIDNIGHT)],
    refusal: 'expired_key',
  },
];

/** The locked path (debitForCall in its own transaction) one by one, stopping at the first refusal. */
async function lockedOneByOne(inputs: DebitForCallInput[]) {
  const results: (DebitResult | undefined)[] = inputs.map(() => undefined);
  for (const [i, input] of inputs.entries()) {
    results[i] = await t.deps.db.orm.transaction((tx) => debitForCall(tx, input));
    if (!results[i]) break;
  }
  return results;
}

describe('one debit rule for agent keys (spending policies)', () => {
  it('the quick, batched and grouped paths write nothing and leave the calls to the locked path, which the explainer agrees with', async () => {
    const reference = await Promise.all(KEY_SCENARIOS.map(prepare));
    const quick = await Promise.all(KEY_SCENARIOS.map(prepare));
    const batched = await Promise.all(KEY_SCENARIOS.map(prepare));
    const grouped = await Promise.all(KEY_SCENARIOS.map(prepare));

    const referenceResults = [];
    for (const s of reference) referenceResults.push(await lockedOneByOne(s.inputs));

    // Every unlocked path refuses every call through an agent key (key_policy_unchecked) ...
    const unlocked: (DebitResult | undefined)[][] = [];
    for (const s of quick)
      unlocked.push(await Promise.all(s.inputs.map((i) => debitForCallQuick(t.deps.db, i))));
    for (const s of batched) unlocked.push(await debitBatchForAccount(t.deps.db, s.accountId, s.inputs));
    unlocked.push(
      await debitAcrossAccounts(
        t.deps.db,
        grouped.flatMap((s) => s.inputs),
      ),
    );
    for (const results of unlocked) expect(results.every((r) => r === undefined)).toBe(true);
    // ... and execution then retries each on the locked path: the same end state as the locked path alone.
    const retried = [];
    for (const s of [...quick, ...batched, ...grouped]) retried.push(await lockedOneByOne(s.inputs));

    for (const [k, s] of KEY_SCENARIOS.entries()) {
      const expected = await outcome(reference[k]!.accountId, referenceResults[k]!);
      const paths = { quick, batched, grouped };
      for (const [p, [name, runs]] of Object.entries(paths).entries()) {
        const got = await outcome(runs[k]!.accountId, retried[p * KEY_SCENARIOS.length + k]!);
        expect(got, `${s.name}: ${name}`).toEqual(expected);
      }
      await expectExplained(s, reference[k]!.inputs, referenceResults[k]!);
    }
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  });

  it('the key counters move with the debit: daily on the call day, total across days', async () => {
    const s = await prepare(KEY_SCENARIOS[3]!);
    const [first] = await lockedOneByOne(s.inputs);
    expect(first?.balanceAfter).toBe(997_600n);
    const k = await one<{ spent_today_credits: bigint; spent_day: string; spent_total_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT spent_today_credits, spent_day::text AS spent_day, spent_total_credits FROM api_keys
          WHERE account_id = ${s.accountId}`,
    );
    expect(k).toEqual({ spent_today_credits: 2400n, spent_day: '2026-03-02', spent_total_credits: 2400n });
  });
});

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

      await expectExplained(s, single[k]!.inputs, singleResults[k]!);
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
