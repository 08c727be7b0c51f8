// npm run bench:execute — paid execution throughput and latency on PostgreSQL (DESIGN.md section 4).
// One run prints: the provider called directly; paid executes at concurrency 1 and 64 over 1,000 accounts
// and on one hot account; a raw single-debit transaction rate from pgbench on the same PostgreSQL; the
// ratios; and the ledger invariants after the run. The service and the provider run in their own processes;
// this one generates the load. DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) gets
// a fresh schema, dropped at the end.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import { openDatabase } from '../src/db/index.js';
import { randomBase62, randomHex } from '../src/lib/secrets.js';
import { checkLedgerInvariants } from '../src/modules/ledger/service.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ACCOUNTS = 1_000;
const ADMIN_TOKEN = `bench-admin-${randomHex(12)}`;
const schema = `bench_exec_${process.pid}_${randomHex(3)}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<number, number>;
}

function percentile(sorted: Float64Array, p: number) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Closed-loop load: `concurrency` workers each send the next request as soon as the last one answered. */
async function load(
  origin: string,
  concurrency: number,
  seconds: number,
  request: (i: number) => { path: string; headers: Record<string, string>; body: string },
): Promise<Result> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let seq = 0;
  const warmupEnd = performance.now() + 500;
  const end = warmupEnd + seconds * 1000;
  let measuredStart = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const r = request(seq++);
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: 'POST', path: r.path, headers: r.headers, body: r.body });
        await res.body.text();
        const t1 = performance.now();
        if (t0 >= warmupEnd) {
          if (!measuredStart) measuredStart = t0;
          latencies.push(t1 - t0);
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          if (res.statusCode !== 200) errors++;
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - (measuredStart || warmupEnd)) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: latencies.length / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors,
    statuses,
  };
}

/** Starts a script in its own process and waits for the JSON line it prints once ready. */
function startProcess<T>(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<{ info: T; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let ready = false;
    child.stdout.on('data', (d) => {
      out += String(d);
      // The ready line, not a log line (the service logs JSON too at LOG_LEVEL=info).
      const line = out.split('\n').find((l) => l.startsWith('{') && !l.includes('"level":'));
      if (line && !ready) {
        ready = true;
        // From here on the output (the service's logs, at LOG_LEVEL=info) is read and dropped, as a log
        // shipper would: keeping and re-scanning it here would load the benchmark itself.
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({
          info: JSON.parse(line) as T,
          stop: () =>
            new Promise<void>((r) => {
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => {
      if (!ready) reject(new Error(`${script} exited with ${code}`));
    });
  });
}

/** The V8 flags of `npm start` (package.json), so the service runs as it does in production. */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=32'];

function startService() {
  return startProcess<{ port: number; pid: number }>(
    'bench/execute-server.ts',
    {
      SVC_ENV: 'devnet',
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_SAMPLE_PROVIDERS: 'off',
      SVC_RATE_LIMIT_MULTIPLIER: '1000000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      DATABASE_URL,
      SVC_TEST_SCHEMA: schema,
      ...(process.env.BENCH_CPU_PROF ? { BENCH_CPU_PROF: process.env.BENCH_CPU_PROF } : {}),
    },
    SERVICE_NODE_FLAGS,
  );
}

/** 1,000 accounts with an API key and a 1,000 USDC admin credit each, written straight into the tables. */
async function seedAccounts(client: pg.Client): Promise<string[]> {
  const keys: string[] = [];
  const accounts: unknown[][] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const key = `svc_sk_${randomBase62(40)}`;
    keys.push(key);
    accounts.push([
      `acc_bench${String(i).padStart(6, '0')}`,
      `key_bench${i}`,
      createHash('sha256').update(key).digest('hex'),
    ]);
  }
  await client.query(
    `INSERT INTO accounts (id, email, balance_credits, total_deposited_credits)
     SELECT a, a || '@bench.local', 1000000000, 1000000000 FROM unnest($1::text[]) a`,
    [accounts.map((a) => a[0])],
  );
  await client.query(
    `INSERT INTO api_keys (id, account_id, name, prefix, key_hash)
     SELECT k, a, 'bench', 'svc_sk_bnch', h FROM unnest($1::text[], $2::text[], $3::text[]) AS t(a, k, h)`,
    [accounts.map((a) => a[0]), accounts.map((a) => a[1]), accounts.map((a) => a[2])],
  );
  await client.query(
    `INSERT INTO ledger_entries (id, account_id, type, amount_credits, balance_after, description, idempotency_key)
     SELECT 'txn_seed_' || id, id, 'admin_credit', 1000000000, 1000000000, 'bench funding', 'bench:' || id
     FROM accounts WHERE id LIKE 'acc_bench%'`,
  );
  return keys;
}

function pgbenchDebitRate(clients: number): number {
  // The smallest honest debit: balance check-and-decrement plus its ledger entry, one transaction.
  const script = path.join(dataDir, 'debit.sql');
  writeFileSync(
    script,
    `\\set n random(0, ${ACCOUNTS - 1})
WITH acct AS (
  UPDATE ${schema}.accounts SET balance_credits = balance_credits - 1
  WHERE id = 'acc_bench' || lpad(:n::text, 6, '0') AND balance_credits >= 1
  RETURNING id, balance_credits)
INSERT INTO ${schema}.ledger_entries (id, account_id, type, amount_credits, balance_after, idempotency_key)
SELECT 'txn_pgb_' || md5(random()::text || clock_timestamp()::text), id, 'debit', -1, balance_credits,
       'pgb:' || md5(random()::text || clock_timestamp()::text) FROM acct;
`,
  );
  const out = execFileSync(
    'pgbench',
    [
      '-n',
      '-f',
      script,
      '-c',
      String(clients),
      '-j',
      '2',
      '-T',
      String(Math.max(3, Math.round(SECONDS / 2))),
      DATABASE_URL,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const m = /tps = ([\d.]+)/.exec(out);
  return m ? Number(m[1]) : Number.NaN;
}

interface DbCounters {
  walBytes: number;
  commits: number;
  flushes: number;
  calls: number;
}

/** WAL written, transactions committed (whole server) and paid calls logged, to report them per call. */
async function dbCounters(client: pg.Client): Promise<DbCounters> {
  const { rows } = await client.query(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS wal,
            (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::float8 AS commits,
            (SELECT wal_sync FROM pg_stat_wal)::float8 AS flushes,
            (SELECT count(*) FROM calls)::float8 AS calls`,
  );
  const r = rows[0] as { wal: number; commits: number; flushes: number; calls: number };
  return { walBytes: r.wal, commits: r.commits, flushes: r.flushes, calls: r.calls };
}

function perCall(a: DbCounters, b: DbCounters) {
  const n = b.calls - a.calls;
  const each = (x: number, y: number) => ((y - x) / n).toFixed(2);
  return `${((b.walBytes - a.walBytes) / n).toFixed(0)} WAL bytes, ${each(a.commits, b.commits)} transactions, ${each(a.flushes, b.flushes)} WAL flushes (server-wide)`;
}

const fmt = (r: Result) =>
  `${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   errors ${r.errors}`;

async function main() {
  const started = performance.now();
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  const provider = await startProcess<{ url: string }>('bench/execute-provider.ts', {});
  const service = await startService();
  const origin = `http://127.0.0.1:${service.info.port}`;
  try {
    await client.query(`SET search_path = ${schema}`);
    const keys = await seedAccounts(client);
    const reg = await fetch(`${origin}/v1/admin/providers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider_id: 'bench',
        name: 'Bench',
        description: 'answers at once',
        category: 'utility',
        base_url: provider.info.url,
        endpoints: [
          {
            slug: 'echo',
            method: 'POST',
            path: '/echo',
            description: 'echo',
            parameters: { text: { type: 'string', required: true, description: 'text' } },
            pricing: { model: 'per_call', price_per_call_usdc: '0.001' },
            timeout_ms: 10_000,
          },
        ],
      }),
    });
    if (reg.status !== 201)
      throw new Error(`provider registration failed: ${reg.status} ${await reg.text()}`);

    const body = JSON.stringify({ text: 'hello' });
    const json = { 'content-type': 'application/json' };
    const direct = (c: number) =>
      load(provider.info.url, c, SECONDS / 2, () => ({ path: '/echo', headers: json, body }));
    const paid = (c: number, hot: boolean) =>
      load(origin, c, SECONDS, (i) => ({
        path: '/v1/execute/bench/echo',
        headers: { ...json, 'x-svc-api-key': hot ? (keys[0] as string) : (keys[i % ACCOUNTS] as string) },
        body,
      }));

    console.log(
      `bench:execute on ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')} schema ${schema}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
    );
    // Warm-up: every account makes one paid call first, as the accounts of a running service would have
    // (the service caches each API key's account mapping on first use; see docs/execution.md).
    const warm = new Pool(origin, { connections: 16 });
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < ACCOUNTS) {
          const key = keys[next++] as string;
          const res = await warm.request({
            method: 'POST',
            path: '/v1/execute/bench/echo',
            headers: { ...json, 'x-svc-api-key': key },
            body,
          });
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`warm-up call answered ${res.statusCode}`);
        }
      }),
    );
    await warm.close();
    const d1 = await direct(1);
    const d64 = await direct(64);
    console.log(`direct provider      c=1   ${fmt(d1)}`);
    console.log(`direct provider      c=64  ${fmt(d64)}`);
    // BENCH_ONLY=1: measure the many-accounts c=64 phase alone (profiling, A/B runs).
    const ONLY = process.env.BENCH_ONLY;
    const skip = { rps: 0, p50: 0, p99: 0, errors: 0, statuses: {} };
    const m1 = ONLY ? skip : await paid(1, false);
    console.log(`paid, 1,000 accounts c=1   ${fmt(m1)}`);
    // BENCH_CPU_PROF: the service profiles this phase only (bench/execute-server.ts).
    const profiling = Boolean(process.env.BENCH_CPU_PROF);
    if (profiling) process.kill(service.info.pid, 'SIGUSR2');
    const before = await dbCounters(client);
    const m64 = await paid(64, false);
    const after = await dbCounters(client);
    if (profiling) process.kill(service.info.pid, 'SIGUSR2');
    console.log(`paid, 1,000 accounts c=64  ${fmt(m64)}`);
    console.log(`  per paid call: ${perCall(before, after)}`);
    const h1 = ONLY ? skip : await paid(1, true);
    console.log(`paid, hot account    c=1   ${fmt(h1)}`);
    const h64 = ONLY ? skip : await paid(64, true);
    console.log(`paid, hot account    c=64  ${fmt(h64)}`);
    await service.stop();

    const tps = pgbenchDebitRate(32);
    console.log(`pgbench single debit c=32  ${tps.toFixed(0).padStart(6)} tx/s`);

    console.log('\nratios');
    console.log(
      `  paid c=64 (many accounts) / pgbench debit rate   ${(m64.rps / tps).toFixed(2)}   (target ≥ 0.65, ≥ 2,500/s)`,
    );
    console.log(
      `  paid c=64 (hot account)                          ${h64.rps.toFixed(0)}/s (target ≥ 1,000/s)`,
    );
    console.log(`  paid c=64 / direct provider c=64                 ${(m64.rps / d64.rps).toFixed(2)}`);
    console.log(
      `  added p50 at c=1 (paid - direct)                 ${(m1.p50 - d1.p50).toFixed(2)} ms (target ≤ 2 ms)`,
    );
    const errors = m1.errors + m64.errors + h1.errors + h64.errors;
    console.log(`  errors in paid runs                              ${errors}`);

    // pgbench's own entries carry no call; the invariants cover them too (balance = sum of entries).
    const db = await openDatabase({ url: DATABASE_URL, schema, poolSize: 2 });
    const violations = await checkLedgerInvariants(db.orm);
    await db.close();
    console.log(
      `  ledger invariants after the run                  ${violations.length === 0 ? 'hold' : JSON.stringify(violations.slice(0, 5))}`,
    );
    console.log(
      `\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s, load average now ${os.loadavg()[0]?.toFixed(1)}`,
    );
    if (violations.length > 0 || errors > 0) process.exitCode = 1;
  } finally {
    await provider.stop();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await client.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
