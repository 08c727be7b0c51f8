// npm run bench:ratelimit — latency the rate limiter adds to a request: the onRequest check itself
// (identity + counters), timed one request after another, on in-process counters and on Redis.
// REDIS_URL (default redis://127.0.0.1:6379) is used when reachable; otherwise the Redis rows are skipped.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { randomHex } from '../src/lib/secrets.js';
import type { Caller } from '../src/modules/auth/caller.js';

const ITERATIONS = 20_000;
const WARMUP = 2_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Scenario {
  name: string;
  caller: (i: number) => Caller;
  route: string | undefined;
}

const ACCOUNT_ID = 'acc_bench';
const SCENARIOS: Scenario[] = [
  {
    name: 'anonymous (1 counter)',
    caller: (i) => ({ kind: 'anonymous', ip: `10.0.${i % 200}.1` }),
    route: undefined,
  },
  {
    name: 'unsigned wallet (2 counters)',
    caller: () => ({ kind: 'wallet', ip: '10.1.0.1', wallet: `0x${'ab'.repeat(20)}` }),
    route: undefined,
  },
  {
    name: 'account + GET /v1/keys (2 counters)',
    caller: () => ({
      kind: 'account',
      ip: '10.2.0.1',
      accountId: ACCOUNT_ID,
      status: 'active',
      credential: 'api_key',
    }),
    route: 'GET /v1/keys',
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

async function run(mode: 'memory' | 'redis') {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const config = loadConfig({
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    SVC_ENCRYPTION_KEY: 'b'.repeat(64),
    SVC_SAMPLE_PROVIDERS: 'off',
    LOG_LEVEL: 'silent',
    // Nothing is refused: we time the check, not the 429 path.
    SVC_RATE_LIMIT_MULTIPLIER: '1000000',
    ...(mode === 'redis' ? { REDIS_URL } : {}),
  });
  const deps = await createDeps(config, { inMemoryDb: true, redisPrefix: `bench:${randomHex(6)}:` });
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const { sql } = await import('drizzle-orm');
  await deps.db.orm.execute(
    sql`INSERT INTO accounts (id, email) VALUES (${ACCOUNT_ID}, 'bench@example.com')`,
  );

  const rows: string[] = [];
  for (const s of SCENARIOS) {
    for (let i = 0; i < WARMUP; i++) await app.rateLimiter.check(s.caller(i), s.route);
    const times: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const caller = s.caller(i);
      const start = process.hrtime.bigint();
      const decision = await app.rateLimiter.check(caller, s.route);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (!decision.allowed) throw new Error('refused during the benchmark; raise the multiplier');
    }
    times.sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    rows.push(
      `${mode.padEnd(7)} ${s.name.padEnd(38)} p50 ${percentile(times, 50).toFixed(3)} ms   p99 ${percentile(times, 99).toFixed(3)} ms   mean ${mean.toFixed(3)} ms`,
    );
  }
  await app.close();
  await closeDeps(deps);
  rmSync(dataDir, { recursive: true, force: true });
  return rows;
}

async function main() {
  console.log(
    `rate limiter: added latency per request (${ITERATIONS} sequential checks per row, after ${WARMUP} warm-up)`,
  );
  for (const row of await run('memory')) console.log(row);
  if (await redisReachable()) {
    for (const row of await run('redis')) console.log(row);
  } else {
    console.log(`redis   skipped: ${REDIS_URL} not reachable`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
