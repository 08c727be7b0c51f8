// Two service instances on one PostgreSQL and one chain: a deposit submitted to both at once, and both
// running the deposit watcher at once, is credited exactly once; faucet mints from both instances share
// the platform key's one nonce sequence.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { scanDeposits } from '../../src/modules/deposits/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { balanceCredits, deposit, expectError, expectLedgerConsistent, link } from './helpers.js';

const shared = Boolean(process.env.DATABASE_URL);

// PGlite is an in-process database: a second instance cannot share it, so this needs PostgreSQL.
describe.skipIf(!shared)('two instances on one PostgreSQL (skipped on PGlite: it cannot be shared)', () => {
  let chain: TestChain;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    chain = await startTestChain();
    const env = { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' };
    a = await createTestApp({ env });
    b = await createTestApp({ env, schema: a.schema as string });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await chain?.stop();
  });

  it('the same hash submitted 20 times across both instances is credited once', async () => {
    const acc = await a.createAccount();
    const wallet = await chain.newWallet(100_000_000n);
    expect((await link(a, acc.apiKey, wallet)).statusCode).toBe(201);
    const hash = await chain.transfer(wallet, a.deps.chain.platformWallet as `0x${string}`, 30_000_000n);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => deposit(i % 2 === 0 ? a : b, acc.apiKey, hash)),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) expectError(r, 409, 'SVC-PAY-003');
    expect(await balanceCredits(a, acc.accountId)).toBe(30_000_000n);
    await expectLedgerConsistent(a);
  });

  it('both watchers at once credit a transfer once', async () => {
    const acc = await a.createAccount();
    const wallet = await chain.newWallet(100_000_000n);
    expect((await link(b, acc.apiKey, wallet)).statusCode).toBe(201);
    await chain.transfer(wallet, a.deps.chain.platformWallet as `0x${string}`, 8_000_000n);
    const [x, y] = await Promise.all([scanDeposits(a.deps), scanDeposits(b.deps)]);
    // Either one instance held the lease, or the second found everything credited already.
    expect(x + y).toBeLessThanOrEqual(1);
    await scanDeposits(a.deps);
    expect(await balanceCredits(a, acc.accountId)).toBe(8_000_000n);
    await expectLedgerConsistent(a);
  });

  it('faucet requests on both instances share one nonce sequence', async () => {
    const wallet = await chain.newWallet();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? a : b).inject({
          method: 'POST',
          url: '/v1/devnet/faucet',
          payload: { address: wallet.address, amount_usdc: '1' },
        }),
      ),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const nonces = await rows<{ nonce: bigint }>(
      a.deps.db.orm,
      sql`SELECT nonce FROM platform_transactions WHERE purpose = 'faucet' ORDER BY nonce`,
    );
    expect(nonces.map((n) => Number(n.nonce))).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
