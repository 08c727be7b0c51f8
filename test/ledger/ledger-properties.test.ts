// Property tests of the ledger (fast-check): random interleavings of call debits, refunds, deposits,
// admin credits and coupon redemptions on accounts with random limits, checked against a model and
// against the ledger's own invariants. Sequential runs compare every answer with the model (the debit
// rule's admissions and refusals, and the reason the explainer gives); concurrent runs check what must
// hold whatever the order: balance = sum of entries, never negative, no entry twice for a unique key,
// and the final balance explained by the operations that reported success.
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { redeemCoupon } from '../../src/modules/billing/coupons.js';
import { creditAccountByAdmin } from '../../src/modules/ledger/admin-credit.js';
import { debitForCall, explainRefusal, refundCall } from '../../src/modules/ledger/calls.js';
import { checkLedgerInvariants, DuplicateLedgerEntry, postEntry } from '../../src/modules/ledger/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
const COUPONS = [
  { code: 'PROP-A', credits: 500_000n },
  { code: 'PROP-B', credits: 1_000_000n },
];
beforeAll(async () => {
  t = await createTestApp();
  for (const c of COUPONS) {
    const res = await t.admin('POST', '/v1/admin/coupons', {
      code: c.code,
      credits_usdc: (Number(c.credits) / 1e6).toString(),
      description: 'property test',
    });
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
});

const NOW = new Date('2026-03-02T12:00:00.000Z');

type Op =
  | { kind: 'debit'; price: bigint }
  | { kind: 'refund'; of: number }
  | { kind: 'deposit'; key: number; amount: bigint }
  | { kind: 'admin'; key: number }
  | { kind: 'coupon'; coupon: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.bigInt(1n, 400_000n).map((price) => ({ kind: 'debit' as const, price })) },
  { weight: 3, arbitrary: fc.nat(12).map((of) => ({ kind: 'refund' as const, of })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ key: fc.nat(3), amount: fc.bigInt(1n, 2_000_000n) })
      .map((d) => ({ kind: 'deposit' as const, ...d })),
  },
  { weight: 2, arbitrary: fc.nat(3).map((key) => ({ kind: 'admin' as const, key })) },
  { weight: 1, arbitrary: fc.nat(COUPONS.length - 1).map((coupon) => ({ kind: 'coupon' as const, coupon })) },
);

const settingsArb = fc.record({
  start: fc.bigInt(0n, 1_000_000n),
  perCall: fc.option(fc.bigInt(50_000n, 400_000n), { nil: null }),
  daily: fc.option(fc.bigInt(100_000n, 1_500_000n), { nil: null }),
});
type Settings = { start: bigint; perCall: bigint | null; daily: bigint | null };

/** An admin credit's amount depends on its key only: the same key is the same request (replayed). */
const adminAmount = (key: number) => BigInt(key + 1) * 100_000n;

let runCounter = 0;

async function prepareAccount(s: Settings) {
  const acc = await t.createAccount();
  const run = `${++runCounter}_${acc.accountId.slice(-6)}`;
  if (s.start > 0n) {
    await t.deps.db.orm.transaction((tx) =>
      postEntry(tx, {
        accountId: acc.accountId,
        type: 'deposit',
        amountCredits: s.start,
        idempotencyKey: `prop:start:${run}`,
      }),
    );
  }
  await t.deps.db.orm.execute(
    sql`UPDATE accounts SET per_call_limit_credits = ${s.perCall}, daily_limit_credits = ${s.daily},
          daily_spent_credits = 0, daily_spent_day = '2026-01-01'::date
        WHERE id = ${acc.accountId}`,
  );
  return { ...acc, run };
}

type Outcome = { ok: boolean; delta: bigint; refusal?: string };

/** Applies one operation through the ledger's own functions; reports what a caller would see. */
async function apply(
  acc: { accountId: string; keyId: string; run: string },
  op: Op,
  calls: { id: string; price: bigint }[],
): Promise<Outcome> {
  const db = t.deps.db;
  switch (op.kind) {
    case 'debit': {
      const callId = `call_prop_${acc.run}_${calls.length}`;
      calls.push({ id: callId, price: op.price });
      const input = {
        callId,
        accountId: acc.accountId,
        apiKeyId: acc.keyId,
        providerId: 'p',
        endpointSlug: 'e',
        priceCredits: op.price,
        now: NOW,
        deadlineAt: new Date(NOW.getTime() + 60_000),
        idempotencyKey: null,
        requestHash: null,
      };
      const r = await db.orm.transaction((tx) => debitForCall(tx, input));
      if (r) return { ok: true, delta: -op.price };
      const why = await explainRefusal(db.orm, acc.accountId, op.price, NOW, acc.keyId, 'p');
      return { ok: false, delta: 0n, refusal: why.kind };
    }
    case 'refund': {
      const call = calls[op.of % Math.max(1, calls.length)];
      if (!call) return { ok: false, delta: 0n };
      const r = await refundCall(db.orm, {
        callId: call.id,
        outcome: 'provider_error',
        reason: 'provider_5xx',
        providerStatus: 500,
        latencyMs: 1,
        finishedAt: NOW,
      });
      return r ? { ok: true, delta: r.credits } : { ok: false, delta: 0n };
    }
    case 'deposit': {
      try {
        await db.orm.transaction((tx) =>
          postEntry(tx, {
            accountId: acc.accountId,
            type: 'deposit',
            amountCredits: op.amount,
            idempotencyKey: `prop:deposit:${acc.run}:${op.key}`,
          }),
        );
        return { ok: true, delta: op.amount };
      } catch (err) {
        if (err instanceof DuplicateLedgerEntry) return { ok: false, delta: 0n };
        throw err;
      }
    }
    case 'admin': {
      const amount = adminAmount(op.key);
      const r = await creditAccountByAdmin(db, {
        accountId: acc.accountId,
        amountUsdc: (Number(amount) / 1e6).toString(),
        description: 'prop',
        idempotencyKey: `k${op.key}`,
      });
      return r.replayed ? { ok: false, delta: 0n } : { ok: true, delta: amount };
    }
    case 'coupon': {
      const c = COUPONS[op.coupon] as (typeof COUPONS)[number];
      try {
        await redeemCoupon(t.deps, acc.accountId, c.code);
        return { ok: true, delta: c.credits };
      } catch (err) {
        if ((err as { code?: string }).code === 'SVC-COUPON-002') return { ok: false, delta: 0n };
        throw err;
      }
    }
  }
}

async function account(accountId: string) {
  const a = await one<{ balance: bigint; total: bigint | null; daily_spent: bigint; entries: bigint }>(
    t.deps.db.orm,
    sql`SELECT a.balance_credits AS balance, a.daily_spent_credits AS daily_spent,
               (SELECT sum(amount_credits) FROM ledger_entries e WHERE e.account_id = a.id) AS total,
               (SELECT count(*) FROM ledger_entries e WHERE e.account_id = a.id) AS entries
        FROM accounts a WHERE a.id = ${accountId}`,
  );
  if (!a) throw new Error(`account ${accountId} not found`);
  return a;
}

/** Every unique write at most once: one entry per idempotency key, one debit and ≤ 1 refund per call. */
async function duplicates(accountId: string) {
  const r = (await t.deps.db.orm.execute(
    sql`SELECT call_id, type, count(*)::int AS n FROM ledger_entries WHERE account_id = ${accountId}
          AND call_id IS NOT NULL GROUP BY call_id, type HAVING count(*) > 1`,
  )) as unknown as { rows: unknown[] };
  return r.rows;
}

describe('ledger properties', () => {
  it('sequential interleavings match the model: admissions, refusals and their reasons, balances', async () => {
    await fc.assert(
      fc.asyncProperty(settingsArb, fc.array(opArb, { minLength: 1, maxLength: 14 }), async (s, ops) => {
        const acc = await prepareAccount(s);
        const calls: { id: string; price: bigint }[] = [];
        const model = {
          balance: s.start,
          spent: 0n,
          pending: new Set<string>(),
          deposits: new Set<number>(),
          admin: new Set<number>(),
          coupons: new Set<number>(),
        };
        for (const op of ops) {
          const got = await apply(acc, op, calls);
          let want: Outcome;
          if (op.kind === 'debit') {
            const refusal =
              s.perCall !== null && op.price > s.perCall
                ? 'per_call'
                : s.daily !== null && model.spent + op.price > s.daily
                  ? 'daily'
                  : model.balance < op.price
                    ? 'balance'
                    : undefined;
            want = refusal ? { ok: false, delta: 0n, refusal } : { ok: true, delta: -op.price };
            if (!refusal) {
              model.spent += op.price;
              model.pending.add(calls[calls.length - 1]?.id as string);
            }
          } else if (op.kind === 'refund') {
            const call = calls[op.of % Math.max(1, calls.length)];
            const pending = call !== undefined && model.pending.has(call.id);
            want = pending ? { ok: true, delta: call.price } : { ok: false, delta: 0n };
            if (pending) {
              model.pending.delete(call.id);
              model.spent -= call.price;
            }
          } else {
            const [seen, key, amount] =
              op.kind === 'deposit'
                ? [model.deposits, op.key, op.amount]
                : op.kind === 'admin'
                  ? [model.admin, op.key, adminAmount(op.key)]
                  : [model.coupons, op.coupon, (COUPONS[op.coupon] as (typeof COUPONS)[number]).credits];
            want = seen.has(key) ? { ok: false, delta: 0n } : { ok: true, delta: amount };
            seen.add(key);
          }
          model.balance += want.delta;
          expect(
            got,
            JSON.stringify(op, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)),
          ).toEqual(want);
        }
        const a = await account(acc.accountId);
        expect(a.balance).toBe(model.balance);
        expect(BigInt(a.total ?? 0)).toBe(a.balance);
        expect(a.daily_spent).toBe(model.spent);
        expect(await duplicates(acc.accountId)).toEqual([]);
      }),
      { numRuns: 25, seed: 4242 },
    );
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  }, 120_000);

  it('concurrent interleavings keep balance = sum of entries, never negative, nothing twice', async () => {
    await fc.assert(
      fc.asyncProperty(
        settingsArb,
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        async (s, groups) => {
          const acc = await prepareAccount(s);
          const calls: { id: string; price: bigint }[] = [];
          let expected = s.start;
          for (const group of groups) {
            // The operations of a group run at once; their order is up to the database.
            const results = await Promise.all(group.map((op) => apply(acc, op, calls)));
            for (const r of results) expected += r.delta;
          }
          const a = await account(acc.accountId);
          expect(a.balance).toBe(expected);
          expect(BigInt(a.total ?? 0)).toBe(a.balance);
          expect(a.balance >= 0n).toBe(true);
          expect(await duplicates(acc.accountId)).toEqual([]);
        },
      ),
      { numRuns: 20, seed: 4343 },
    );
    expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
  }, 120_000);
});
