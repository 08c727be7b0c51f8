// Discovery at 10,000 and 100,000 endpoints, over HTTP against the real service (part of
// `npm run bench:discovery`). A synthetic catalogue with realistic, overlapping vocabulary
// (discovery-catalogue.ts) is written straight into the tables; every measured request carries a query
// never asked before, so the answer caches never help.
//
// PostgreSQL (DATABASE_URL set): two service processes on a fresh schema (dropped at the end), as two
// deployed instances; memory is the first one's resident set (/proc) above the same process empty.
// PGlite (DATABASE_URL unset): one in-process service on an in-memory PGlite; its memory figure is the
// whole process's and includes the database.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { Pool } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Executor, openDatabase } from '../src/db/index.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { usdcToCredits } from '../src/lib/money.js';
import { randomHex } from '../src/lib/secrets.js';
import { endpointText } from '../src/modules/discovery/endpoint-vectors.js';
import { generateCatalogue, generateQueries } from './discovery-catalogue.js';
import { toIndexedEndpoints } from './discovery-devset.js';
import type { DevProvider } from './discovery-metrics.js';

const ADMIN = `bench-admin-${randomHex(12)}`;
const DATABASE_URL = process.env.DATABASE_URL;
const C1_REQUESTS = Number(process.env.BENCH_C1_REQUESTS ?? 600);
/** Sequential queries each instance answers before anything is measured. */
const WARM_UP_REQUESTS = 200;
const C16_SECONDS = Number(process.env.BENCH_C16_SECONDS ?? 5);

const fmt = (n: number, d = 1) => n.toFixed(d);
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface Instance {
  origin: string;
  pool: Pool;
  /** Resident set of the service in MB (current, peak), when it runs in its own process. */
  memory(): { rss: number; peak: number };
  /** The main thread's V8 heap (total, used) and memory outside it, in MB, when the service tells. */
  heap(): Promise<HeapReport | undefined>;
  stop(): Promise<void>;
}

interface HeapReport {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  /** Heap used after a full collection: what is live. */
  heapLive?: number;
  external: number;
}

function procMemory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

function serviceEnv(dataDir: string): Record<string, string> {
  return {
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: ADMIN,
    SVC_SAMPLE_PROVIDERS: 'off',
    SVC_RATE_LIMIT_MULTIPLIER: '1000000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
}

/** `root`: the checkout whose service runs (a baseline checkout for a before/after comparison). */
function spawnService(env: Record<string, string>, root: string, profile = false): Promise<Instance> {
  // BENCH_CPU_PROF=dir: the first service writes a CPU profile there when it stops.
  const prof =
    profile && process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
  const child = spawn(
    process.execPath,
    [...prof, '--max-semi-space-size=32', '--import', 'tsx', 'bench/discovery-server.ts'],
    { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      child.stdout.removeAllListeners('data');
      const { port, pid, memoryReport } = JSON.parse(line) as {
        port: number;
        pid: number;
        memoryReport?: boolean;
      };
      // Later lines: memory reports asked for with SIGUSR2 (a baseline checkout may not answer them).
      const reports: Array<(r: HeapReport) => void> = [];
      let rest = '';
      child.stdout.on('data', (d) => {
        rest += String(d);
        const lines = rest.split('\n');
        rest = lines.pop() ?? '';
        for (const l of lines) {
          if (!l.startsWith('{"memory"')) continue;
          reports.shift()?.((JSON.parse(l) as { memory: HeapReport }).memory);
        }
      });
      const origin = `http://127.0.0.1:${port}`;
      resolve({
        origin,
        pool: new Pool(origin, { connections: 32 }),
        memory: () => procMemory(pid),
        heap: () =>
          memoryReport
            ? new Promise<HeapReport>((r) => {
                reports.push(r);
                child.kill('SIGUSR2');
              })
            : Promise.resolve(undefined),
        stop: () =>
          new Promise<void>((r) => {
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`discovery-server exited with ${code}`)));
  });
}

async function inProcessService(dataDir: string) {
  const config = loadConfig(serviceEnv(dataDir));
  const deps = await createDeps(config, { inMemoryDb: true });
  const app = await buildApp(deps, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const instance: Instance = {
    origin,
    pool: new Pool(origin, { connections: 32 }),
    memory: () => {
      const m = process.memoryUsage();
      return { rss: m.rss / 2 ** 20, peak: procMemory(process.pid).peak };
    },
    heap: async () => {
      const m = process.memoryUsage();
      const mb = (n: number) => Math.round(n / 2 ** 20);
      return {
        rss: mb(m.rss),
        heapTotal: mb(m.heapTotal),
        heapUsed: mb(m.heapUsed),
        external: mb(m.external),
      };
    },
    async stop() {
      await app.close();
      await closeDeps(deps);
    },
  };
  return { instance, db: deps.db.orm };
}

interface DiscoverOut {
  results: Array<{ provider_id: string; endpoint_slug: string }>;
}

async function post(
  instance: Instance,
  pathname: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await instance.pool.request({
    method: 'POST',
    path: pathname,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${pathname}: ${res.statusCode} ${text}`);
  return JSON.parse(text) as unknown;
}

const discover = (instance: Instance, query: string, limit = 10) =>
  post(instance, '/v1/discover', { query, limit }) as Promise<DiscoverOut>;

/** Writes the catalogue in batches of multi-row inserts (as a bulk import would). */
async function bulkLoad(db: Executor, providers: DevProvider[]) {
  for (let i = 0; i < providers.length; i += 500) {
    const batch = providers.slice(i, i + 500);
    const rowsP = batch.map((p) => ({
      id: p.provider_id,
      name: p.name,
      description: p.description,
      category: p.category,
      tags: p.tags ?? [],
    }));
    await db.execute(
      sql`INSERT INTO providers (id, name, description, category, base_url, tags, secret_ciphertext)
          SELECT id, name, description, category, 'http://127.0.0.1:9', tags, 'x'
          FROM json_to_recordset(${JSON.stringify(rowsP)}::json)
            AS x(id text, name text, description text, category text, tags text[])`,
    );
    const rowsE = batch.flatMap((p) =>
      p.endpoints.map((e, position) => ({
        provider_id: p.provider_id,
        slug: e.slug,
        method: e.method,
        description: e.description,
        tags: e.tags ?? [],
        parameters: e.parameters ?? {},
        response_schema: e.response_schema ?? null,
        price_credits: usdcToCredits(e.pricing.price_per_call_usdc).toString(),
        position,
      })),
    );
    await db.execute(
      sql`INSERT INTO endpoints (provider_id, slug, method, description, tags, parameters, response_schema,
                                 price_credits, position)
          SELECT provider_id, slug, method, description, tags, parameters, response_schema, price_credits::bigint,
                 position
          FROM json_to_recordset(${JSON.stringify(rowsE)}::json)
            AS x(provider_id text, slug text, method text, description text, tags text[], parameters json,
                 response_schema json, price_credits text, position int)`,
    );
  }
}

/** `concurrency` workers sending the next unused query until `stopAt` (or until queries run out). */
async function load(
  instance: Instance,
  queries: string[],
  next: { i: number },
  concurrency: number,
  stopAt: number,
) {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < stopAt && next.i < queries.length) {
        const query = queries[next.i++] as string;
        const t = performance.now();
        try {
          await discover(instance, query);
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { latencies, errors, rps: latencies.length / seconds };
}

/** Sequential requests, each a new query: uncached latency at c=1. */
async function sequential(instance: Instance, queries: string[], next: { i: number }, count: number) {
  const latencies: number[] = [];
  for (let k = 0; k < count && next.i < queries.length; k++) {
    const t = performance.now();
    await discover(instance, queries[next.i++] as string);
    latencies.push(performance.now() - t);
  }
  return latencies.sort((a, b) => a - b);
}

/**
 * One provider replaced through the admin API of `writer`; every 10 ms each instance is asked for the new
 * endpoint until it shows. Meanwhile 4 clients per instance keep sending discovery requests: their worst
 * latency in the window says whether the change held any request up.
 */
async function changeVisibility(
  writer: Instance,
  instances: Instance[],
  victim: DevProvider,
  queries: string[],
  next: { i: number },
  round: number,
) {
  const word = `${['saffron', 'walrus', 'origami', 'glacier'][round % 4]}`;
  const slug = `fresh-${round}`;
  const probe = `${word} ${slug} telescope calibration`;
  const replacement = {
    name: victim.name,
    description: victim.description,
    category: victim.category,
    base_url: 'http://127.0.0.1:9',
    tags: victim.tags ?? [],
    endpoints: [
      ...victim.endpoints.slice(1).map((e) => ({ ...e })),
      {
        ...victim.endpoints[0],
        slug,
        description: `Calibrate a ${word} telescope: ${slug} alignment of mirrors.`,
      },
    ],
  };
  const background = instances.map((inst) => {
    const stopAt = performance.now() + 2_500;
    return load(inst, queries, next, 4, stopAt);
  });
  await new Promise((r) => setTimeout(r, 300));
  const t0 = performance.now();
  const res = await writer.pool.request({
    method: 'PUT',
    path: `/v1/admin/providers/${victim.provider_id}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(replacement),
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`replace provider: ${res.statusCode}`);
  const written = performance.now() - t0;
  const visibleAfter = await Promise.all(
    instances.map(async (inst) => {
      for (;;) {
        const body = await discover(inst, probe, 50);
        if (body.results.some((r) => r.provider_id === victim.provider_id && r.endpoint_slug === slug))
          return performance.now() - t0;
        if (performance.now() - t0 > 30_000) return Number.NaN;
        await new Promise((r) => setTimeout(r, 10));
      }
    }),
  );
  const during = await Promise.all(background);
  return {
    written,
    visibleAfter,
    worst: during.map((d) => d.latencies.at(-1) ?? 0),
    errors: during.map((d) => d.errors),
  };
}

async function scaleRun(providerCount: number, queries: string[], catalogue: DevProvider[], root: string) {
  const endpoints = catalogue.reduce((s, p) => s + p.endpoints.length, 0);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-dsc-'));
  const schema = `bench_dsc_${process.pid}_${randomHex(3)}`;
  let instances: Instance[] = [];
  let db: Executor;
  let closeDb = async () => {};
  let admin: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    if (DATABASE_URL) {
      const env = { ...serviceEnv(dataDir), DATABASE_URL, SVC_TEST_SCHEMA: schema };
      const first = await spawnService(env, root, root === process.cwd());
      instances = [first, await spawnService(env, root)];
      admin = await openDatabase({ url: DATABASE_URL, schema, poolSize: 2 });
      db = admin.orm;
      closeDb = async () => {
        await admin?.orm.execute(sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).catch(() => {});
        await admin?.close();
      };
    } else {
      const s = await inProcessService(dataDir);
      instances = [s.instance];
      db = s.db;
    }
    const [a] = instances as [Instance];
    // The empty service, warmed up (word vectors loaded, code paths compiled).
    for (const inst of instances) await discover(inst, 'warm up the empty service');
    const empty = a.memory();
    const emptyHeap = await a.heap();

    const cachedVectors = await vectorCache(db, 'read');
    let t = performance.now();
    await bulkLoad(db, catalogue);
    const loadSeconds = (performance.now() - t) / 1000;
    // The instances learn of the bulk import as of a change made elsewhere: wait until both serve it.
    t = performance.now();
    const known = catalogue[0]?.endpoints[0];
    await Promise.all(
      instances.map(async (inst) => {
        for (;;) {
          const body = await discover(inst, known?.description ?? 'x', 50);
          if (body.results.some((r) => r.provider_id === catalogue[0]?.provider_id)) return;
          await new Promise((r) => setTimeout(r, 50));
        }
      }),
    );
    const firstBuild = performance.now() - t;
    // Sentence vectors (SVC_EMBEDDINGS=local, the default) are encoded in the background after that and
    // stored; the figures below are taken once every text has one (a deployment's steady state).
    t = performance.now();
    const encoded = await waitForVectors(db, new Set(toIndexedEndpoints(catalogue).map(endpointText)).size);
    const vectorsSeconds = encoded ? (performance.now() - t) / 1000 : undefined;
    if (encoded) await vectorCache(db, 'write');

    const next = { i: 0 };
    // Warm-up. Every instance, as in a deployment where each serves traffic: the change rounds below load
    // both, and an instance whose first rankings fall in round 1 made that round look slow (its code and
    // lazily built structures still cold; docs/discovery-history.md, "The slow first change round").
    for (const inst of instances) await sequential(inst, queries, next, WARM_UP_REQUESTS);
    const c1 = await sequential(a, queries, next, C1_REQUESTS);
    const c16 = await load(a, queries, next, 16, performance.now() + C16_SECONDS * 1000);
    const c4 = await load(a, queries, next, 4, performance.now() + C16_SECONDS * 1000);
    const changes = [];
    for (let round = 0; round < 3; round++)
      changes.push(
        await changeVisibility(a, instances, catalogue[round * 7] as DevProvider, queries, next, round),
      );
    const after = a.memory();
    const afterHeap = await a.heap();
    const loadAverage = os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
    return {
      load: loadAverage,
      endpoints,
      providerCount,
      loadSeconds,
      firstBuild,
      vectorsSeconds,
      cachedVectors,
      c1,
      c16,
      c4,
      changes,
      empty,
      after,
      emptyHeap,
      afterHeap,
      usedQueries: next.i,
      label: root === process.cwd() ? '' : ` (${path.basename(root)})`,
    };
  } finally {
    for (const inst of instances) {
      await inst.pool.close();
      await inst.stop();
    }
    await closeDb();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * BENCH_VECTOR_CACHE=1 (PostgreSQL only): sentence vectors stored by an earlier run are copied into the
 * fresh schema before the import (`read`, returns how many), and this run's are kept for the next
 * (`write`), in `public.bench_discovery_text_vectors_v2` (v2: with the late-interaction rows of migration
 * 0202; the table copies endpoint_text_vectors' columns when it is made). Saves minutes of encoding per run when comparing
 * ranking code; the encoding time printed is then not a figure. Only for trees with the same encoder:
 * `waitForVectors` counts every encoder's rows, so a cache holding another encoder's vectors ends the wait
 * while the service is still encoding its own (drop the table, or run without the cache, to compare
 * encoders).
 */
async function vectorCache(db: Executor, mode: 'read' | 'write'): Promise<number> {
  if (process.env.BENCH_VECTOR_CACHE !== '1' || !DATABASE_URL || process.env.SVC_EMBEDDINGS === 'off')
    return 0;
  await db.execute(
    sql`CREATE TABLE IF NOT EXISTS public.bench_discovery_text_vectors_v2 (LIKE endpoint_text_vectors INCLUDING ALL)`,
  );
  const result =
    mode === 'read'
      ? await db.execute(
          sql`INSERT INTO endpoint_text_vectors SELECT * FROM public.bench_discovery_text_vectors_v2`,
        )
      : await db.execute(
          sql`INSERT INTO public.bench_discovery_text_vectors_v2 SELECT * FROM endpoint_text_vectors ON CONFLICT DO NOTHING`,
        );
  return (result as unknown as { rowCount?: number }).rowCount ?? 0;
}

/**
 * Waits until `texts` sentence vectors are stored (false at once when the service stores none: embeddings
 * off, or a baseline checkout without the table), then a few seconds more for every instance to read
 * the last ones.
 */
async function waitForVectors(db: Executor, texts: number): Promise<boolean> {
  if (process.env.SVC_EMBEDDINGS === 'off') return false;
  for (;;) {
    const result = await db
      .execute(sql`SELECT count(*)::int AS n FROM endpoint_text_vectors`)
      .catch(() => undefined);
    const n = (result as unknown as { rows: Array<{ n: number }> } | undefined)?.rows[0]?.n;
    if (n === undefined) return false;
    if (n >= texts) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await new Promise((r) => setTimeout(r, 3_000));
  return true;
}

type ScaleResult = Awaited<ReturnType<typeof scaleRun>>;

function printTable(results: ScaleResult[]) {
  const row = (label: string, f: (r: ScaleResult) => string) =>
    console.log(`| ${label} | ${results.map(f).join(' | ')} |`);
  console.log(
    `\n| | ${results.map((r) => `${r.endpoints.toLocaleString('en')} endpoints${r.label}`).join(' | ')} |`,
  );
  console.log(`|---|${results.map(() => '---|').join('')}`);
  row('sentence vectors of every endpoint encoded and stored, after the import', (r) =>
    r.vectorsSeconds === undefined
      ? 'off'
      : r.cachedVectors > 0
        ? `${r.cachedVectors} read from BENCH_VECTOR_CACHE, the rest in ${fmt(r.vectorsSeconds, 0)} s`
        : `${fmt(r.vectorsSeconds, 0)} s`,
  );
  row('uncached c=1: p50 / p99', (r) => `${fmt(pct(r.c1, 0.5), 2)} ms / ${fmt(pct(r.c1, 0.99), 2)} ms`);
  row('uncached c=4: rps / p99', (r) => `${fmt(r.c4.rps, 0)} / ${fmt(pct(r.c4.latencies, 0.99))} ms`);
  row(
    'uncached c=16: rps / p99 (errors)',
    (r) => `${fmt(r.c16.rps, 0)} / ${fmt(pct(r.c16.latencies, 0.99))} ms (${r.c16.errors})`,
  );
  row('one provider replaced → visible, same instance (3 rounds)', (r) =>
    r.changes
      .map((c) => `${fmt(c.visibleAfter[0] ?? Number.NaN, 0)}`)
      .join(', ')
      .concat(' ms'),
  );
  row('… of which the admin PUT took', (r) =>
    r.changes
      .map((c) => fmt(c.written, 0))
      .join(', ')
      .concat(' ms'),
  );
  if (DATABASE_URL)
    row('… visible on the other instance', (r) =>
      r.changes
        .map((c) => `${fmt(c.visibleAfter[1] ?? Number.NaN, 0)}`)
        .join(', ')
        .concat(' ms'),
    );
  row('worst discovery latency while it happened (per instance)', (r) =>
    r.changes
      .map((c) => c.worst.map((w) => fmt(w, 0)).join('/'))
      .join(', ')
      .concat(' ms'),
  );
  row(
    'service memory above the empty service (peak above empty)',
    (r) => `${fmt(r.after.rss - r.empty.rss, 0)} MB (${fmt(r.after.peak - r.empty.rss, 0)} MB)`,
  );
  row(
    '… main thread: V8 heap used (live after a full GC) / total; outside the heap (buffers); empty → after',
    (r) => {
      const [e, a] = [r.emptyHeap, r.afterHeap];
      if (!e || !a) return 'not reported';
      const live = (h: HeapReport) => (h.heapLive === undefined ? '' : ` (live ${h.heapLive})`);
      return (
        `${e.heapUsed}${live(e)}/${e.heapTotal} → ${a.heapUsed}${live(a)}/${a.heapTotal} MB; ` +
        `${e.external} → ${a.external} MB`
      );
    },
  );
  row('load average at the end (2 cores)', (r) => r.load);
}

/**
 * `baseline`: another checkout (e.g. /work/main) whose service is measured first on the same catalogue
 * and queries, for a before/after comparison in one run (PostgreSQL only: its services are processes).
 */
export async function scaleBenchmark(sizes: number[], baseline?: string) {
  if (baseline && !DATABASE_URL)
    throw new Error('--baseline needs DATABASE_URL (separate service processes)');
  console.log(
    `\nscale: ${DATABASE_URL ? 'PostgreSQL, 2 service processes' : 'PGlite in-memory, 1 in-process service'}` +
      // The services inherit REDIS_URL: changes then reach the other instance through the relay.
      `${DATABASE_URL && process.env.REDIS_URL ? ', changes relayed through Redis' : ''}; ` +
      `${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
  );
  const results: ScaleResult[] = [];
  for (const providers of sizes) {
    let t = performance.now();
    const catalogue = generateCatalogue(providers);
    const queries = generateQueries(catalogue, 40_000);
    const genSeconds = (performance.now() - t) / 1000;
    const pair: ScaleResult[] = [];
    for (const root of baseline ? [path.resolve(baseline), process.cwd()] : [process.cwd()]) {
      t = performance.now();
      const r = await scaleRun(providers, queries, catalogue, root);
      console.log(
        `  ${r.endpoints} endpoints${r.label}: generated in ${fmt(genSeconds)} s, written in ${fmt(r.loadSeconds)} s, ` +
          `served by every instance ${fmt(r.firstBuild / 1000)} s later; ${r.usedQueries} distinct queries; ` +
          `run ${fmt((performance.now() - t) / 1000)} s`,
      );
      pair.push(r);
    }
    results.push(pair.at(-1) as ScaleResult);
    // Printed as soon as a size is done: the larger size takes minutes on a loaded machine.
    printTable(pair);
    if (pair.length === 2) {
      const [before, after] = pair as [ScaleResult, ScaleResult];
      const ratio = (f: (r: ScaleResult) => number) => fmt(f(before) / f(after), 2);
      console.log(
        `baseline ÷ this: c=1 p50 ×${ratio((r) => pct(r.c1, 0.5))}, p99 ×${ratio((r) => pct(r.c1, 0.99))}; ` +
          `c=16 rps ×${fmt(after.c16.rps / before.c16.rps, 2)} (this ÷ baseline)`,
      );
    }
  }
  if (results.length > 1) printTable(results);
  if (results.length === 2) {
    const [s, l] = results as [ScaleResult, ScaleResult];
    const growth = pct(l.c1, 0.5) / pct(s.c1, 0.5);
    console.log(
      `\np50 growth ${s.endpoints}→${l.endpoints}: ×${fmt(growth, 2)} for ×${fmt(l.endpoints / s.endpoints, 0)} ` +
        `endpoints (${growth < l.endpoints / s.endpoints ? 'sub-linear' : 'NOT sub-linear'})`,
    );
  }
  console.log(
    'targets: uncached p50 ≤ 5 ms and p99 ≤ 20 ms at c=1 at 10,000 endpoints; rps growing with concurrency; ' +
      'sub-linear growth 10k→100k; a change visible within 1 s on every instance without blocking requests; ' +
      '≤ 300 MB above the empty service at 10,000 endpoints.',
  );
}
