// Cluster mode as deployed: `src/server.ts` with SVC_WORKERS=2 on PostgreSQL + Redis. Concurrent paid calls
// that together exceed the balance never overdraw it, a rate limit is counted across both workers, and
// SIGTERM stops the primary and every worker cleanly. (Needs PostgreSQL and Redis: skipped on PGlite.)
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { randomHex } from '../../src/lib/secrets.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import { providerBody } from '../execution/fixtures.js';
import { TEST_ADMIN_TOKEN } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';

const BASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const enabled = Boolean(BASE_URL && REDIS_URL);
const dbName = `svc_cluster_${process.pid}_${randomHex(3)}`;
const dbUrl = BASE_URL ? `${BASE_URL.replace(/\/[^/]*$/, '')}/${dbName}` : '';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-cluster-'));
const RATE_LIMIT = 25;

interface Answer {
  status: number;
  body: string;
}

/** One request on its own connection, so the cluster spreads them over its workers. */
function request(port: number, method: string, url: string, headers: Record<string, string>, body?: unknown) {
  return new Promise<Answer>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        agent: false,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += String(d);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let provider: ProviderServer;
let service: ChildProcess;
let port = 0;
let output = '';
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** Worker pids that logged an access line for this account. */
/**
 * Waits until the access log shows both workers serving the account: each worker writes its lines
 * through a buffer flushed every 200 ms (http/logging.ts), so they can arrive after the responses.
 */
async function expectBothWorkersServed(accountId: string) {
  await vi.waitFor(() => expect(pidsServing(accountId).size).toBe(2), { timeout: 5_000, interval: 100 });
}

function pidsServing(accountId: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line) as { msg?: string; account?: string; pid?: number };
    if (o.msg === 'request' && o.account === accountId && o.pid) pids.add(o.pid);
  }
  return pids;
}

async function newAccount(usdc: string): Promise<{ accountId: string; apiKey: string }> {
  const created = await request(port, 'POST', '/v1/admin/accounts', admin, {
    email: `cluster-${randomHex(4)}@example.com`,
  });
  expect(created.status).toBe(201);
  const { account_id: accountId, api_key: key } = JSON.parse(created.body).data;
  const apiKey: string = key.key;
  const credit = await request(port, 'POST', `/v1/admin/accounts/${accountId}/credits`, admin, {
    amount_usdc: usdc,
    description: 'cluster test',
  });
  expect(credit.status).toBe(201);
  return { accountId, apiKey };
}

describe('SVC_WORKERS', () => {
  const base = { SVC_DATA_DIR: '/tmp/svc-config-test' };
  const pgAndRedis = { DATABASE_URL: 'postgres://db/svc', REDIS_URL: 'redis://cache' };
  const production = {
    ...base,
    SVC_ENV: 'production',
    SVC_ADMIN_TOKEN: 'x'.repeat(24),
    SVC_ENCRYPTION_KEY: 'c'.repeat(64),
    STRIPE_SECRET_KEY: 'sk_test_x',
    STRIPE_WEBHOOK_SECRET: 'whsec_x',
  };

  it('defaults to one process, and to every core in production on PostgreSQL and Redis', () => {
    expect(loadConfig(base).workers).toBe(1);
    expect(loadConfig({ ...base, ...pgAndRedis }).workers).toBe(1);
    expect(loadConfig({ ...production, DATABASE_URL: pgAndRedis.DATABASE_URL }).workers).toBe(1);
    expect(loadConfig({ ...production, ...pgAndRedis }).workers).toBe(os.availableParallelism());
    expect(loadConfig({ ...production, ...pgAndRedis, SVC_WORKERS: '3' }).workers).toBe(3);
  });

  it('refuses several workers on the embedded database or without Redis, saying why', () => {
    expect(() => loadConfig({ ...base, SVC_WORKERS: '2' })).toThrow(
      /SVC_WORKERS=2 needs DATABASE_URL: the embedded database \(PGlite\) can be opened by one process only/,
    );
    expect(() => loadConfig({ ...base, SVC_WORKERS: '2', DATABASE_URL: pgAndRedis.DATABASE_URL })).toThrow(
      /SVC_WORKERS=2 needs REDIS_URL/,
    );
    expect(() => loadConfig({ ...base, SVC_WORKERS: '0' })).toThrow(/SVC_WORKERS must be between 1/);
  });
});

describe.skipIf(!enabled)('cluster mode (SVC_WORKERS=2)', () => {
  beforeAll(async () => {
    const client = new pg.Client({ connectionString: BASE_URL });
    await client.connect();
    await client.query(`CREATE DATABASE ${dbName}`);
    await client.end();
    provider = await startProviderServer({ record: false });
    port = await freePort();
    service = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        ...process.env,
        SVC_WORKERS: '2',
        SVC_ENV: 'devnet',
        SVC_DATA_DIR: dataDir,
        SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        SVC_ENCRYPTION_KEY: 'b'.repeat(64),
        SVC_SAMPLE_PROVIDERS: 'off',
        SVC_ALLOW_PRIVATE_PROVIDERS: 'on',
        // No chain is needed here: an address nothing answers, and no deposit watcher.
        SVC_CHAIN_RPC_URL: 'http://127.0.0.1:9',
        SVC_DEPOSIT_WATCH: 'off',
        SVC_RATE_LIMIT_ACCOUNT: String(RATE_LIMIT),
        SVC_RATE_LIMIT_WALLET_NEW: String(RATE_LIMIT),
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: dbUrl,
        REDIS_URL: REDIS_URL as string,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout?.on('data', (d) => {
      output += String(d);
    });
    service.stderr?.on('data', (d) => {
      output += String(d);
    });
    // Both workers listening (each logs it). Each worker loads the whole service: slow on a busy host.
    const deadline = Date.now() + 200_000;
    while ((output.match(/Server listening/g) ?? []).length < 2) {
      if (Date.now() > deadline || service.exitCode !== null)
        throw new Error(`cluster did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 240_000);

  afterAll(async () => {
    // SIGTERM, so the primary takes its workers down with it (SIGKILL would leave them to notice alone).
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    }
    await provider?.close();
    const client = new pg.Client({ connectionString: BASE_URL });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await client.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never overdraws a balance with concurrent paid calls spread over both workers', async () => {
    const reg = await request(
      port,
      'POST',
      '/v1/admin/providers',
      admin,
      providerBody('cluster', provider.url, [{ slug: 'echo', price_usdc: '0.001' }]),
    );
    expect(reg.status).toBe(201);
    // Enough for 10 calls; 20 are sent at once.
    const acc = await newAccount('0.01');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(port, 'POST', '/v1/execute/cluster/echo', { 'x-svc-api-key': acc.apiKey }, {}),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(10);
    const balance = await request(port, 'GET', '/v1/wallet/balance', { 'x-svc-api-key': acc.apiKey });
    expect(JSON.parse(balance.body).data.balance_usdc).toMatch(/^0(\.0+)?$/);
    await expectBothWorkersServed(acc.accountId);

    const db = await openDatabase({ url: dbUrl, poolSize: 1 });
    try {
      expect(await checkLedgerInvariants(db.orm)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('counts a rate limit across both workers', async () => {
    const acc = await newAccount('1');
    const answers: Answer[] = [];
    // Sequential, each on a new connection: the workers take turns.
    for (let i = 0; i < RATE_LIMIT + 10; i++)
      answers.push(await request(port, 'GET', '/v1/wallet/balance', { 'x-svc-api-key': acc.apiKey }));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(RATE_LIMIT);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(10);
    await expectBothWorkersServed(acc.accountId);
  }, 60_000);

  it('stops every worker on SIGTERM, cleanly', async () => {
    const workers = [...output.matchAll(/"pid":(\d+).*Server listening/g)].map((m) => Number(m[1]));
    expect(workers).toHaveLength(2);
    const exited = new Promise<number | null>((resolve) => service.once('exit', (code) => resolve(code)));
    service.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect((output.match(/"msg":"shutting down"/g) ?? []).length).toBe(2);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
