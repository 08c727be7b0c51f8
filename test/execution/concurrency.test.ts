// Real concurrency: many requests in flight at once against one account (and, on PostgreSQL, through two
// service instances sharing the database).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
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

const env = { SVC_RATE_LIMIT_MULTIPLIER: '10000' };
let t: TestApp;
let server: ProviderServer;
let providerId: string;

beforeAll(async () => {
  t = await createTestApp({ env });
  server = await startProviderServer({ record: false });
  providerId = (
    await registerProvider(t, server.url, [
      // Generous timeouts: on PGlite the database runs on this event loop and delays everything else.
      { slug: 'echo', price_usdc: '0.01', timeout_ms: 20_000 },
      {
        slug: 'idem',
        path: '/idem/echo',
        price_usdc: '0.01',
        timeout_ms: 20_000,
        parameters: { n: { type: 'integer', required: true, description: 'a number' } },
      },
      { slug: 'fail', price_usdc: '0.01', timeout_ms: 20_000 },
    ])
  ).providerId;
});

afterAll(async () => {
  await t.close();
  await server.close();
});

function countBy(statuses: number[]) {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

describe('concurrent executions', () => {
  it('200 concurrent calls against a balance covering 50: exactly 50 charged, never negative', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '0.5');
    const results = await Promise.all(
      Array.from({ length: 200 }, () => execute(t, acc.apiKey, providerId, 'echo', {})),
    );
    expect(countBy(results.map((r) => r.statusCode))).toEqual({ 200: 50, 402: 150 });
    expect(await balanceCredits(t, acc.accountId)).toBe(0n);
    // The outcome row is written just after the answer (execution/settle-queue.ts).
    await outcomesRecorded(t);
    const [calls] = await rows<{ n: bigint }>(
      t.deps.db.orm,
      sql`SELECT count(*) AS n FROM calls WHERE account_id = ${acc.accountId} AND status = 'success'`,
    );
    expect(calls?.n).toBe(50n);
    await expectInvariants(t);
  });

  it('concurrent calls against a daily limit never overshoot it', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '100');
    await t.deps.db.orm.execute(
      sql`UPDATE accounts SET daily_limit_credits = 305000 WHERE id = ${acc.accountId}`,
    );
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        execute(t, acc.apiKey, providerId, i % 5 === 0 ? 'fail' : 'echo', {}),
      ),
    );
    const statuses = countBy(results.map((r) => r.statusCode));
    const [a] = await rows<{ daily_spent_credits: bigint; total_spent_credits: bigint }>(
      t.deps.db.orm,
      sql`SELECT daily_spent_credits, total_spent_credits FROM accounts WHERE id = ${acc.accountId}`,
    );
    // Refunded failures give their share back, so up to 30 calls fit; the limit itself is never passed.
    expect(statuses[200]).toBeLessThanOrEqual(30);
    expect(statuses[402]).toBeGreaterThan(0);
    expect(a?.daily_spent_credits).toBe(BigInt(statuses[200] ?? 0) * 10_000n);
    expect(a?.daily_spent_credits).toBeLessThanOrEqual(305_000n);
    for (const r of results.filter((x) => x.statusCode === 402)) {
      expect(r.json()).toMatchObject({ code: 'SVC-CREDIT-002', details: { limitType: 'daily' } });
    }
    await expectInvariants(t);
  });

  it('the same Idempotency-Key 20 times at once: one provider call, one debit', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const before = server.hits('/idem/echo');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        execute(t, acc.apiKey, providerId, 'idem', { n: 1 }, { 'idempotency-key': 'same-key' }),
      ),
    );
    expect(server.hits('/idem/echo') - before).toBe(1);
    const fresh = results.filter((r) => r.statusCode === 200 && !r.headers['idempotent-replayed']);
    expect(fresh).toHaveLength(1);
    for (const r of results) {
      if (r === fresh[0]) continue;
      // Either still running (409) or already finished (replayed with the same body).
      if (r.statusCode === 409) expect(r.json().error.code).toBe('SVC-VAL-005');
      else expect(r.json()).toEqual(fresh[0]?.json());
    }
    expect(await balanceCredits(t, acc.accountId)).toBe(990_000n);
    const debits = await rows<{ n: bigint }>(
      t.deps.db.orm,
      sql`SELECT count(*) AS n FROM ledger_entries WHERE account_id = ${acc.accountId} AND type = 'debit'`,
    );
    expect(debits[0]?.n).toBe(1n);
    await expectInvariants(t);
  });

  it('mixed successes and provider failures at once keep the ledger consistent', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '0.3');
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => execute(t, acc.apiKey, providerId, i % 2 ? 'fail' : 'echo', {})),
    );
    const charged = results.filter((r) => r.statusCode === 200).length;
    expect(charged).toBeLessThanOrEqual(30);
    expect(await balanceCredits(t, acc.accountId)).toBe(300_000n - BigInt(charged) * 10_000n);
    await expectInvariants(t);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('two service instances on one PostgreSQL', () => {
  it('hammering one account through both keeps every invariant (skipped on PGlite: one process only)', async () => {
    const second = await createTestApp({ env, ...(t.schema ? { schema: t.schema } : {}) });
    try {
      const acc = await t.createAccount();
      await fund(t, acc.accountId, '1');
      const results = await Promise.all(
        Array.from({ length: 160 }, (_, i) =>
          execute(i % 2 ? second : t, acc.apiKey, providerId, i % 7 === 0 ? 'fail' : 'echo', {}),
        ),
      );
      const charged = results.filter((r) => r.statusCode === 200).length;
      expect(charged).toBeGreaterThan(0);
      expect(charged).toBeLessThanOrEqual(100);
      expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n - BigInt(charged) * 10_000n);
      // A key race across instances: still one charge.
      await fund(t, acc.accountId, '1');
      const keyed = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          execute(i % 2 ? second : t, acc.apiKey, providerId, 'echo', {}, { 'idempotency-key': 'cross' }),
        ),
      );
      expect(keyed.filter((r) => r.statusCode === 200 && !r.headers['idempotent-replayed'])).toHaveLength(1);
      expect(await balanceCredits(t, acc.accountId)).toBe(2_000_000n - BigInt(charged + 1) * 10_000n);
      await expectInvariants(t);
    } finally {
      await second.close();
    }
  });
});
