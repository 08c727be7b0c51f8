// Crash safety: a real service process is SIGKILLed while a paid call hangs at the provider; the debit
// stays pending until the sweeper (run here, in another instance) refunds it exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { randomHex } from '../../src/lib/secrets.js';
import { SWEEP_MARGIN_MS, sweepAbandonedCalls } from '../../src/modules/execution/sweeper.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { TEST_ADMIN_TOKEN } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { openServiceInstance, startServiceProcess } from '../helpers/service-child.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-crash-'));
const schema = process.env.DATABASE_URL ? `t_crash_${process.pid}_${randomHex(4)}` : undefined;
const env: Record<string, string> = {
  SVC_ENV: 'devnet',
  SVC_DATA_DIR: dataDir,
  SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  SVC_ENCRYPTION_KEY: 'a'.repeat(64),
  SVC_SAMPLE_PROVIDERS: 'off',
  LOG_LEVEL: 'silent',
  SVC_RATE_LIMIT_MULTIPLIER: '1000',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  ...(schema ? { SVC_TEST_SCHEMA: schema } : {}),
};

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(async () => {
  await server.close();
  if (schema && process.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('crash safety', () => {
  it('refunds a call whose service process was killed mid-call, once, after its deadline', async () => {
    const clock = new ManualClock();
    // 1. Set up provider, account and balance, then let the child process have the database.
    let first = await openServiceInstance(env, { schema, clock });
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const acc = await first.app.inject({
      method: 'POST',
      url: '/v1/admin/accounts',
      headers: admin,
      payload: { email: `crash-${randomHex(4)}@example.com` },
    });
    const { account_id: accountId, api_key: apiKey } = acc.json().data;
    await first.app.inject({
      method: 'POST',
      url: `/v1/admin/accounts/${accountId}/credits`,
      headers: admin,
      payload: { amount_usdc: '1', description: 'crash test' },
    });
    const prov = await first.app.inject({
      method: 'POST',
      url: '/v1/admin/providers',
      headers: admin,
      payload: {
        provider_id: 'crashy',
        name: 'Crashy',
        description: 'hangs',
        category: 'utility',
        base_url: server.url,
        endpoints: [
          {
            slug: 'hang',
            method: 'POST',
            path: '/hang',
            description: 'never answers',
            parameters: {},
            pricing: { model: 'per_call', price_per_call_usdc: '0.25' },
            timeout_ms: 2_000,
          },
        ],
      },
    });
    expect(prov.statusCode).toBe(201);
    if (!schema) await first.close(); // PGlite: one process at a time on a data dir

    // 2. A real service process takes a paid call to the hanging provider and is killed mid-call.
    const { child, port } = await startServiceProcess(env);
    const call = fetch(`http://127.0.0.1:${port}/v1/execute/crashy/hang`, {
      method: 'POST',
      headers: { 'x-svc-api-key': apiKey.key, 'content-type': 'application/json' },
      body: '{}',
    }).catch((e: unknown) => e);
    for (let i = 0; i < 200 && server.hits('/hang') === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.hits('/hang')).toBe(1);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect(await call).toBeInstanceOf(Error);

    // 3. Another instance: the debit is there and pending; the sweeper leaves it until deadline + margin.
    if (!schema) first = await openServiceInstance(env, { schema, clock });
    const db = first.deps.db.orm;
    const pending = await one<{ id: string; status: string }>(
      db,
      sql`SELECT id, status FROM calls WHERE account_id = ${accountId}`,
    );
    expect(pending?.status).toBe('pending');
    const balance = async () =>
      (await one<{ b: bigint }>(db, sql`SELECT balance_credits AS b FROM accounts WHERE id = ${accountId}`))
        ?.b;
    expect(await balance()).toBe(750_000n);
    clock.set(new Date());
    expect(await sweepAbandonedCalls(first.deps)).toBe(0);

    // The child stamped the deadline with the real clock: move past it plus the margin.
    clock.set(new Date(Date.now() + 2_000 + SWEEP_MARGIN_MS + 1_000));
    expect(await sweepAbandonedCalls(first.deps)).toBe(1);
    expect(await sweepAbandonedCalls(first.deps)).toBe(0);
    expect(await balance()).toBe(1_000_000n);
    const swept = await one<{ status: string; refunded: boolean; refund_reason: string }>(
      db,
      sql`SELECT status, refunded, refund_reason FROM calls WHERE id = ${pending?.id}`,
    );
    expect(swept).toEqual({ status: 'timeout', refunded: true, refund_reason: 'abandoned' });
    expect(await checkLedgerInvariants(db)).toEqual([]);
    await first.close();
  }, 180_000); // two PGlite data dirs are created from scratch (initdb + migrations) and a child process started
});
