// The daily settlement job: nothing before 02:00 UTC; at 02:00 it settles what was earned before 00:00 UTC,
// exactly once however many ticks and instances run it at once (two apps on one PostgreSQL; on PGlite,
// concurrent ticks of one app); a run interrupted by a crash is taken over after its lease.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { dailySettlementJob, runDailySettlement } from '../../src/modules/payouts/index.js';
import { execute, fund, outcomesRecorded } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  asAccount,
  fundHotWallet,
  ownedProvider,
  payTo,
  settleOnChain,
  transfersTo,
  usdcBalance,
} from './helpers.js';

const shared = Boolean(process.env.DATABASE_URL);
const HOUR = 3_600_000;
const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
const at = (hoursFromToday: number) => new Date(today.getTime() + hoursFromToday * HOUR);

let chain: TestChain;
let server: ProviderServer;
let a: TestApp;
let b: TestApp;
const clock = new ManualClock(at(-9));

beforeAll(async () => {
  chain = await startTestChain();
  server = await startProviderServer();
  const env = { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' };
  a = await createTestApp({ env, clock });
  // A second instance on the same PostgreSQL schema; PGlite cannot be shared, so there the same app ticks twice.
  b = shared ? await createTestApp({ env, clock, schema: a.schema as string }) : a;
  await fundHotWallet(a, chain, 1_000_000_000n);
}, 180_000);

afterAll(async () => {
  if (b !== a) await b?.close();
  await a?.close();
  await server?.close();
  await chain?.stop();
});

const runs = () =>
  rows<{ run_date: unknown; attempts: number; settlements: number | null; finished_at: unknown }>(
    a.deps.db.orm,
    sql`SELECT run_date::text AS run_date, attempts, settlements, finished_at FROM settlement_runs`,
  );

describe('the daily settlement job', () => {
  it('settles yesterday at 02:00 UTC once, whatever the number of ticks and instances', async () => {
    const owner = await a.createAccount();
    const caller = await a.createAccount();
    await fund(a, caller.accountId, '10');
    const providerId = await ownedProvider(a, owner.accountId, server.url, [
      { slug: 'echo', price_usdc: '0.7' },
    ]);
    const wallet = await chain.newWallet();
    await payTo(a, owner.accountId, wallet.address);

    // Yesterday 15:00: three calls. Today 01:00: one more, which belongs to today's period.
    for (let i = 0; i < 3; i++)
      expect((await execute(a, caller.apiKey, providerId, 'echo', {})).statusCode).toBe(200);
    clock.set(at(1));
    expect((await execute(a, caller.apiKey, providerId, 'echo', {})).statusCode).toBe(200);
    await outcomesRecorded(a);

    clock.set(at(1.99));
    expect(await dailySettlementJob.run(a.deps)).toBe(0);
    expect(await runs()).toEqual([]);

    clock.set(at(2.5));
    const ticks = await Promise.all([
      runDailySettlement(a.deps),
      runDailySettlement(b.deps),
      runDailySettlement(a.deps),
      runDailySettlement(b.deps),
    ]);
    expect(ticks.filter((n) => n > 0).length).toBeGreaterThanOrEqual(1);
    await settleOnChain(a);
    // 2.1 − 3 % = 2.037 USDC, once.
    expect(await usdcBalance(chain, wallet.address)).toBe(2_037_000n);
    expect(await transfersTo(chain, wallet.address)).toHaveLength(1);
    const [run] = await runs();
    expect(run).toMatchObject({ run_date: today.toISOString().slice(0, 10), attempts: 1, settlements: 1 });
    expect(run?.finished_at).not.toBeNull();

    const list = (
      await a.inject({ method: 'GET', url: '/v1/provider/settlements', headers: asAccount(owner.apiKey) })
    ).json().data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      status: 'confirmed',
      total_calls: 3,
      period_end: today.toISOString(),
      amount_usdc: '2.037000',
    });
    // Today's call waits for tomorrow.
    const earnings = await a.inject({
      method: 'GET',
      url: '/v1/provider/earnings',
      headers: asAccount(owner.apiKey),
    });
    expect(earnings.json().data).toMatchObject({
      unsettled_calls: 1,
      unsettled_gross_usdc: '0.700000',
      next_settlement_at: at(26).toISOString(),
    });

    // Later ticks the same day do nothing more.
    clock.set(at(5));
    await Promise.all([dailySettlementJob.run(a.deps), dailySettlementJob.run(b.deps)]);
    await settleOnChain(a);
    expect(await transfersTo(chain, wallet.address)).toHaveLength(1);

    // Tomorrow at 02:00 the remaining call is paid (0.7 − 3 % = 0.679).
    clock.set(at(26.1));
    await Promise.all([dailySettlementJob.run(a.deps), dailySettlementJob.run(b.deps)]);
    await settleOnChain(a);
    expect(await usdcBalance(chain, wallet.address)).toBe(2_716_000n);
    expect(await transfersTo(chain, wallet.address)).toHaveLength(2);
    expect((await runs()).map((r) => r.run_date).sort()).toEqual([
      today.toISOString().slice(0, 10),
      at(24).toISOString().slice(0, 10),
    ]);
  });

  it('takes over a run whose instance crashed (lease expired), without paying anything twice', async () => {
    // The day after tomorrow: claimed by an instance that died before finishing.
    const day = at(48).toISOString().slice(0, 10);
    await a.deps.db.orm.execute(
      sql`INSERT INTO settlement_runs (run_date, until, lease_until, started_at)
          VALUES (${day}, ${at(48).toISOString()}, ${at(50.5).toISOString()}, ${at(50).toISOString()})`,
    );
    clock.set(at(50.2));
    await dailySettlementJob.run(a.deps);
    expect((await runs()).find((r) => r.run_date === day)).toMatchObject({ attempts: 1, finished_at: null });
    clock.set(at(51));
    await dailySettlementJob.run(b.deps);
    expect((await runs()).find((r) => r.run_date === day)).toMatchObject({ attempts: 2, settlements: 0 });
  });
});
