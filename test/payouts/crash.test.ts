// Crash safety of a payout: a real service process runs the settlement and is SIGKILLed (test-only crash
// point, SVC_TEST_CRASH_AT) after the transfer was signed and stored but before it was broadcast, or after
// it was broadcast but before the settlement recorded it. After a restart exactly one transfer is on-chain
// and the settlement is confirmed.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { randomHex } from '../../src/lib/secrets.js';
import { platformTransactionsJob } from '../../src/modules/chain/index.js';
import { outcomesWritten } from '../../src/modules/execution/index.js';
import { payPending } from '../../src/modules/payouts/index.js';
import { TEST_ADMIN_TOKEN } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { openServiceInstance, startServiceProcess } from '../helpers/service-child.js';
import { payToWallet, transfersTo, usdcBalance } from './helpers.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-payout-crash-'));
const schema = process.env.DATABASE_URL ? `t_pcrash_${process.pid}_${randomHex(4)}` : undefined;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

let chain: TestChain;
let server: ProviderServer;
let env: Record<string, string>;

beforeAll(async () => {
  chain = await startTestChain();
  server = await startProviderServer();
  env = {
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SVC_ENCRYPTION_KEY: 'a'.repeat(64),
    SVC_SAMPLE_PROVIDERS: 'off',
    LOG_LEVEL: 'silent',
    SVC_RATE_LIMIT_MULTIPLIER: '1000',
    // One platform key for every process of this file: they share its nonce sequence in the database.
    ...(await chain.serviceEnv()),
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(schema ? { SVC_TEST_SCHEMA: schema } : {}),
  };
  await chain.mint(env.SVC_PLATFORM_WALLET as `0x${string}`, 1_000_000_000n);
}, 180_000);

afterAll(async () => {
  await server?.close();
  await chain?.stop();
  if (schema && process.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** Owner with a payout wallet, a provider it owns and two paid calls of 0.5 USDC by another account. */
async function earnings(): Promise<{ ownerId: string; wallet: string }> {
  const first = await openServiceInstance(env, { schema });
  try {
    const post = (url: string, payload: object) =>
      first.app.inject({ method: 'POST', url, headers: admin, payload });
    const account = async () =>
      (await post('/v1/admin/accounts', { email: `pc-${randomHex(4)}@example.com` })).json().data;
    const owner = await account();
    const caller = await account();
    await post(`/v1/admin/accounts/${caller.account_id}/credits`, { amount_usdc: '5', description: 'test' });
    const providerId = `crashpay-${randomHex(3)}`;
    const created = await post('/v1/admin/providers', {
      provider_id: providerId,
      owner_account_id: owner.account_id,
      name: 'Crash pay',
      description: 'Paid provider',
      category: 'utility',
      base_url: server.url,
      endpoints: [
        {
          slug: 'echo',
          method: 'POST',
          path: '/echo',
          description: 'Echo',
          parameters: {},
          pricing: { model: 'per_call', price_per_call_usdc: '0.5' },
        },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await first.app.inject({
        method: 'POST',
        url: `/v1/execute/${providerId}/echo`,
        headers: { 'x-svc-api-key': caller.api_key.key },
        payload: {},
      });
      expect(res.statusCode).toBe(200);
    }
    await outcomesWritten(first.app);
    const wallet = (await chain.newWallet()).address;
    await payToWallet(first.deps.db.orm, owner.account_id, wallet);
    return { ownerId: owner.account_id, wallet };
  } finally {
    await first.close();
  }
}

async function crashDuringRun(crashAt: string) {
  const { child, port } = await startServiceProcess({ ...env, SVC_TEST_CRASH_AT: crashAt });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_c, signal) => resolve(signal)),
  );
  await fetch(`http://127.0.0.1:${port}/v1/admin/settlements/run`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ until: new Date().toISOString() }),
  }).then(
    (res) => {
      throw new Error(`the service answered ${res.status} instead of crashing`);
    },
    () => undefined,
  );
  expect(await exited).toBe('SIGKILL');
}

async function recoverAndCheck(ownerId: string, wallet: string) {
  const next = await openServiceInstance(env, { schema });
  try {
    const [before] = await rows<{ status: string }>(
      next.deps.db.orm,
      sql`SELECT status FROM settlements WHERE account_id = ${ownerId}`,
    );
    expect(before?.status).toBe('pending');
    // What a restarted instance's jobs do: pay pending payouts (the stored transfer is rebroadcast, never
    // re-signed) and refresh platform transactions. Twice, to be sure nothing is paid again.
    for (let i = 0; i < 2; i++) {
      await payPending(next.deps);
      await platformTransactionsJob.run(next.deps);
    }
    const again = await next.app.inject({
      method: 'POST',
      url: '/v1/admin/settlements/run',
      headers: admin,
      payload: { until: new Date().toISOString() },
    });
    expect(again.json().data).toEqual([]);
    const [after] = await rows<{ status: string; tx_hash: string }>(
      next.deps.db.orm,
      sql`SELECT status, tx_hash FROM settlements WHERE account_id = ${ownerId}`,
    );
    expect(after?.status).toBe('confirmed');
    // 2 × 0.5 − 3 % = 0.97 USDC, in exactly one transfer.
    expect(await usdcBalance(chain, wallet)).toBe(970_000n);
    expect((await transfersTo(chain, wallet)).map((t) => t.hash)).toEqual([after?.tx_hash]);
    const ptx = await rows<{ n: number }>(
      next.deps.db.orm,
      sql`SELECT count(*)::int AS n FROM platform_transactions WHERE purpose = 'payout' AND reference IN
            (SELECT id FROM settlements WHERE account_id = ${ownerId})`,
    );
    expect(Number(ptx[0]?.n)).toBe(1);
  } finally {
    await next.close();
  }
}

describe('a payout interrupted by a crash', () => {
  it('killed after signing and storing, before broadcasting: the stored transfer is sent once', async () => {
    const { ownerId, wallet } = await earnings();
    await crashDuringRun('platform-tx:stored');
    expect(await transfersTo(chain, wallet)).toEqual([]);
    await recoverAndCheck(ownerId, wallet);
  }, 300_000);

  it('killed after broadcasting, before recording: nothing is paid a second time', async () => {
    const { ownerId, wallet } = await earnings();
    await crashDuringRun('payout:broadcast');
    expect(await transfersTo(chain, wallet)).toHaveLength(1);
    await recoverAndCheck(ownerId, wallet);
  }, 300_000);
});
