// Many accounts paying at once: their debits are group-committed (several accounts in one statement). Each
// account must still be judged alone: balance, limits, low-balance alert, suspension and key revocation of
// one account never affect another's calls, and the ledger invariants hold.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { balanceCredits, execute, expectInvariants, fund, registerProvider } from './fixtures.js';

const env = { SVC_RATE_LIMIT_MULTIPLIER: '10000' };
let t: TestApp;
let server: ProviderServer;
let providerId: string;

beforeAll(async () => {
  t = await createTestApp({ env });
  server = await startProviderServer({ record: false });
  providerId = (
    await registerProvider(t, server.url, [{ slug: 'echo', price_usdc: '0.01', timeout_ms: 20_000 }])
  ).providerId;
});

afterAll(async () => {
  await t.close();
  await server.close();
});

type Kind = 'plain' | 'poor' | 'daily' | 'per_call' | 'alert' | 'suspended' | 'revoked';
const KINDS: Kind[] = ['plain', 'poor', 'daily', 'per_call', 'alert', 'suspended', 'revoked'];

async function account(kind: Kind) {
  const acc = await t.createAccount();
  // poor: covers 2 calls of 0.01 (the second would empty it: taken alone, with its notification)
  await fund(t, acc.accountId, kind === 'poor' ? '0.02' : '1');
  const db = t.deps.db.orm;
  if (kind === 'daily') {
    await db.execute(sql`UPDATE accounts SET daily_limit_credits = 20000 WHERE id = ${acc.accountId}`);
  }
  if (kind === 'alert') {
    await db.execute(
      sql`UPDATE accounts SET low_balance_threshold_credits = 985000 WHERE id = ${acc.accountId}`,
    );
  }
  // One paid call first so the key mapping is cached on this instance.
  const warm = await execute(t, acc.apiKey, providerId, 'echo', {});
  expect(warm.statusCode, kind).toBe(200);
  if (kind === 'per_call') {
    await db.execute(sql`UPDATE accounts SET per_call_limit_credits = 5000 WHERE id = ${acc.accountId}`);
  }
  if (kind === 'suspended') {
    await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/suspend`, { reason: 'test' });
  }
  if (kind === 'revoked') {
    await db.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE account_id = ${acc.accountId}`);
  }
  return { kind, ...acc };
}

describe('debits of many accounts at once', () => {
  it('judges every account alone: balances, limits, alerts, suspension and revocation', async () => {
    const accounts = [];
    for (let i = 0; i < 6; i++) for (const kind of KINDS) accounts.push(await account(kind));
    const before = new Map<string, bigint>();
    for (const a of accounts) before.set(a.accountId, await balanceCredits(t, a.accountId));

    // Three calls per account, all in flight at once.
    const results = await Promise.all(
      accounts.flatMap((a) =>
        [0, 1, 2].map(async () => ({ a, res: await execute(t, a.apiKey, providerId, 'echo', {}) })),
      ),
    );
    const byAccount = new Map<string, number[]>();
    for (const { a, res } of results) {
      byAccount.set(a.accountId, [...(byAccount.get(a.accountId) ?? []), res.statusCode]);
    }
    for (const a of accounts) {
      const statuses = (byAccount.get(a.accountId) ?? []).sort();
      const charged = statuses.filter((s) => s === 200).length;
      const expected: Record<Kind, number[]> = {
        plain: [200, 200, 200],
        poor: [200, 402, 402], // 0.01 left after the warm-up call
        daily: [200, 402, 402], // 0.02 a day, 0.01 spent by the warm-up call
        per_call: [402, 402, 402],
        alert: [200, 200, 200], // crosses its threshold: debited with the notification, never lost
        suspended: [403, 403, 403],
        revoked: [401, 401, 401],
      };
      expect(statuses, a.kind).toEqual(expected[a.kind]);
      expect(await balanceCredits(t, a.accountId), a.kind).toBe(
        (before.get(a.accountId) ?? 0n) - BigInt(charged) * 10_000n,
      );
    }
    const negative = await one<{ n: bigint }>(
      t.deps.db.orm,
      sql`SELECT count(*) AS n FROM accounts WHERE balance_credits < 0`,
    );
    expect(negative?.n).toBe(0n);
    await expectInvariants(t);
  });
});
