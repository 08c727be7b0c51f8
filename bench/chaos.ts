// `npm run chaos`: failure probes against real processes, each printing tried / charged / refunded /
// uncharged / lost / doubled / 5xx and the ledger invariant check. Everything it breaks is its own: a
// throwaway PostgreSQL cluster (initdb into a temp dir, pg_ctl on a free port), a throwaway redis-server on
// a free port, the service processes it starts (test/helpers/service-process.ts) and an in-process
// provider. Never the shared 5432 / 6379 servers. Not part of `npm test` (minutes); figures go to docs/reliability.md.
//
// Per probe, after the sweeper has refunded what the crash left pending:
//   charged  = calls debited and not refunded;   refunded = calls refunded;
//   uncharged = 200 answers the agent got for which no charge stands: a charged outcome is written just
//              after its answer (docs/execution.md, "Charged outcomes"), so a process killed in between
//              leaves the call pending and the sweeper refunds it — the customer is never charged for an
//              answer the ledger cannot show, and the service gives up that call's price. By design, and
//              bounded: at most the calls in flight at the kill (the probe's concurrency);
//   lost     = calls still pending after the sweep (money neither charged nor refunded);
//   doubled  = charges beyond the answers the agent got (charged calls with no 200 seen), or a call
//              with two debits/refunds (the invariants);
//   5xx      = our own 5xx answers (503 with Retry-After during an outage is counted apart as "503").
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { type AppDeps, closeDeps, createDeps } from '../src/deps.js';
import { sweepAbandonedCalls } from '../src/modules/execution/index.js';
import { checkLedgerInvariants } from '../src/modules/ledger/index.js';
import { startProviderServer } from '../test/helpers/providers.js';

const ADMIN = 'chaos-admin-token-0123456789abcdef0123';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-chaos-'));
const cleanups: (() => Promise<void> | void)[] = [];

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ── throwaway PostgreSQL ──────────────────────────────────────────────────────────────────────────────
function pgBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(`${root}/${v}/bin/${name}`)) return `${root}/${v}/bin/${name}`;
  throw new Error(`${name} not found under ${root}`);
}

/** PostgreSQL refuses to run as root: as root, its binaries run as the `postgres` user (runuser). */
function runPg(name: string, args: string[]) {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', pgBin(name), ...args], { stdio: 'ignore' });
  else execFileSync(pgBin(name), args, { stdio: 'ignore' });
}

async function startPostgres() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-chaos-pg-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  runPg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  const ctl = (...args: string[]) => {
    runPg('pg_ctl', ['-D', data, '-w', ...args]);
  };
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  ctl('-o', opts, '-l', path.join(dir, 'pg.log'), 'start');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => ctl('-m', 'immediate', 'stop'));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => ctl('-m', 'fast', '-o', opts, 'restart'),
  };
}

// ── throwaway Redis ───────────────────────────────────────────────────────────────────────────────────
async function startRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await sleep(300);
  };
  await start();
  cleanups.push(() => {
    child?.kill('SIGKILL');
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () => child?.kill('SIGKILL'),
    start,
  };
}

// ── service processes ─────────────────────────────────────────────────────────────────────────────────
interface Service {
  url: string;
  kill9(): void;
  stop(): Promise<void>;
}

function startService(env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/service-process.ts'], {
    env: {
      ...process.env,
      SVC_ENV: 'devnet',
      SVC_DATA_DIR: tmp,
      SVC_ADMIN_TOKEN: ADMIN,
      SVC_SAMPLE_PROVIDERS: 'off',
      SVC_RATE_LIMIT_MULTIPLIER: '1000000',
      SVC_CHAIN_RPC_URL: 'http://127.0.0.1:9',
      SVC_DEPOSIT_WATCH: 'off',
      LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      const { port } = JSON.parse(line) as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        kill9: () => child.kill('SIGKILL'),
        stop: () =>
          new Promise<void>((r) => {
            if (child.exitCode !== null) return r();
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
}

// ── load and accounting ───────────────────────────────────────────────────────────────────────────────
interface Tally {
  tried: number;
  ok: number;
  byStatus: Record<string, number>;
}

async function admin(url: string, method: string, p: string, body?: unknown) {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { data?: Record<string, unknown> };
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json.data ?? {};
}

/** Calls execute on `urls` (round robin) with `concurrency` workers until `until()` is true. */
async function load(
  urls: () => string[],
  apiKey: string,
  endpoint: string,
  concurrency: number,
  until: () => boolean,
  tally: Tally,
) {
  let i = 0;
  const worker = async () => {
    while (!until()) {
      const targets = urls();
      const url = targets[i++ % targets.length];
      tally.tried++;
      try {
        const res = await fetch(`${url}${endpoint}`, {
          method: 'POST',
          headers: { 'x-svc-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ delay_ms: 30 }),
          signal: AbortSignal.timeout(10_000),
        });
        await res.text();
        tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
        if (res.status === 200) tally.ok++;
      } catch {
        tally.byStatus.conn = (tally.byStatus.conn ?? 0) + 1;
        await sleep(50);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function account(deps: AppDeps, accountId: string) {
  const r = (await deps.db.orm.execute(
    sql`SELECT
          (SELECT count(*) FROM calls WHERE account_id = ${accountId} AND NOT refunded AND status <> 'pending')::int AS charged,
          (SELECT count(*) FROM calls WHERE account_id = ${accountId} AND refunded)::int AS refunded,
          (SELECT count(*) FROM calls WHERE account_id = ${accountId} AND status = 'pending')::int AS pending`,
  )) as unknown as { rows: { charged: number; refunded: number; pending: number }[] };
  return r.rows[0] ?? { charged: 0, refunded: 0, pending: 0 };
}

interface ProbeLine {
  probe: string;
  tried: number;
  charged: number;
  refunded: number;
  uncharged: number;
  /** Calls in flight at most: the bound on `uncharged`. */
  inFlight: number;
  lost: number;
  doubled: number;
  '5xx': number;
  '503': number;
  invariants: string;
}
const results: ProbeLine[] = [];

async function settle(deps: AppDeps, accountId: string, tally: Tally, probe: string, inFlight: number) {
  // Calls left pending by a crash are refunded once their deadline (timeout + margin) has passed.
  await sleep(4_000);
  await sweepAbandonedCalls(deps, 0);
  const a = await account(deps, accountId);
  const violations = await checkLedgerInvariants(deps.db.orm);
  const fivexx = Object.entries(tally.byStatus)
    .filter(([s]) => /^5\d\d$/.test(s) && s !== '503' && s !== '502' && s !== '504')
    .reduce((n, [, c]) => n + c, 0);
  results.push({
    probe,
    tried: tally.tried,
    charged: a.charged,
    refunded: a.refunded,
    uncharged: Math.max(0, tally.ok - a.charged),
    inFlight,
    lost: a.pending,
    doubled: Math.max(0, a.charged - tally.ok),
    '5xx': fivexx,
    '503': tally.byStatus['503'] ?? 0,
    invariants: violations.length === 0 ? 'ok' : violations.map((v) => v.rule).join('; '),
  });
  console.log(
    `${probe}: ${JSON.stringify(results[results.length - 1])} statuses ${JSON.stringify(tally.byStatus)}`,
  );
}

// ── the probes ────────────────────────────────────────────────────────────────────────────────────────
async function main() {
  const pg = await startPostgres();
  const redis = await startRedis();
  const provider = await startProviderServer({ record: false });
  cleanups.push(() => provider.close());
  const base = { DATABASE_URL: pg.url, SVC_TEST_SCHEMA: 'public', REDIS_URL: redis.url };
  const config = loadConfig({
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: tmp,
    SVC_ADMIN_TOKEN: ADMIN,
    DATABASE_URL: pg.url,
    LOG_LEVEL: 'silent',
  });
  let first = await startService(base);
  const deps = await createDeps(config, { poolSize: 4 });
  cleanups.push(() => closeDeps(deps));
  await admin(first.url, 'POST', '/v1/admin/providers', {
    provider_id: 'chaos',
    name: 'Chaos provider',
    description: 'slow echo',
    category: 'utility',
    base_url: provider.url,
    endpoints: [
      {
        slug: 'slow',
        method: 'POST',
        path: '/slow',
        description: 'answers after delay_ms',
        parameters: { delay_ms: { type: 'integer', required: false, description: 'delay' } },
        pricing: { model: 'per_call', price_per_call_usdc: '0.001' },
        timeout_ms: 2_000,
      },
    ],
  });
  const newAccount = async () => {
    const acc = await admin(first.url, 'POST', '/v1/admin/accounts', {
      email: `chaos${Math.random()}@example.com`,
    });
    const accountId = acc.account_id as string;
    await admin(first.url, 'POST', `/v1/admin/accounts/${accountId}/credits`, {
      amount_usdc: '100000',
      description: 'chaos',
    });
    return { accountId, apiKey: (acc.api_key as { key: string }).key };
  };
  const endpoint = '/v1/execute/chaos/slow';

  // The instances the load goes to; a probe that kills or adds one changes this list.
  let urls = [first.url];
  /** Paid calls at `concurrency` from a new account while `disrupt` runs; then what happened to them. */
  const probe = async (name: string, concurrency: number, disrupt: () => Promise<void>) => {
    const acc = await newAccount();
    const tally: Tally = { tried: 0, ok: 0, byStatus: {} };
    let stop = false;
    const running = load(
      () => urls,
      acc.apiKey,
      endpoint,
      concurrency,
      () => stop,
      tally,
    );
    await disrupt();
    stop = true;
    await running;
    await settle(deps, acc.accountId, tally, name, concurrency);
  };

  // 1. kill -9 of the only instance mid-call, then a new instance.
  await probe('kill -9 mid-call', 16, async () => {
    await sleep(3_000);
    first.kill9();
    first = await startService(base);
    urls = [first.url];
    await sleep(3_000);
  });
  // 2. Two instances under load, one killed with -9; the other carries on.
  const second = await startService(base);
  urls = [first.url, second.url];
  await probe('one of two instances killed', 32, async () => {
    await sleep(3_000);
    second.kill9();
    urls = [first.url];
    await sleep(3_000);
  });
  // 3. Redis killed under load (rate limits and caches fall back), then back.
  await probe('Redis killed', 16, async () => {
    await sleep(2_000);
    redis.kill();
    await sleep(3_000);
    await redis.start();
    await sleep(2_000);
  });
  // 4. PostgreSQL restarted under load: 503 + Retry-After while it is down, then back.
  await probe('PostgreSQL restarted', 16, async () => {
    await sleep(2_000);
    pg.restart();
    await sleep(4_000);
  });
  // 5. Chain RPC down (nothing listens on its port): chain routes answer 503, paid calls go on.
  const chainAnswers: Record<string, number> = {};
  await probe('chain RPC down', 8, async () => {
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${first.url}/v1/devnet`);
      await res.text();
      chainAnswers[res.status] = (chainAnswers[res.status] ?? 0) + 1;
      await sleep(100);
    }
  });
  console.log(`  GET /v1/devnet with the RPC down: ${JSON.stringify(chainAnswers)}`);

  console.log(
    '\n| probe | tried | charged | refunded | answered, not charged (≤ in flight) | lost | doubled | 5xx | 503 | invariants |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.probe} | ${r.tried} | ${r.charged} | ${r.refunded} | ${r.uncharged} (≤ ${r.inFlight}) | ${r.lost} | ${r.doubled} | ${r['5xx']} | ${r['503']} | ${r.invariants} |`,
    );
  }
  await first.stop();
  return results.every(
    (r) =>
      r.uncharged <= r.inFlight && r.lost === 0 && r.doubled === 0 && r['5xx'] === 0 && r.invariants === 'ok',
  );
}

let ok = false;
try {
  ok = await main();
} finally {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}
console.log(ok ? 'chaos: OK' : 'chaos: FAILED');
process.exit(ok ? 0 : 1);
