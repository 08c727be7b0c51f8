// The service under benchmark, in its own process(es), as deployed: createDeps on the schema named by
// SVC_TEST_SCHEMA, the service's own logger at LOG_LEVEL (JSON on stdout), background jobs running, and with
// SVC_WORKERS > 1 the cluster primary of src/cluster.ts forking that many workers on one port. Prints
// `{"port": N, "pid": P}` once every worker listens.
//
// SIGUSR2 marks a measured phase (the primary passes it on to its workers): the first starts it, the next
// ends it and each worker writes `<BENCH_OUT>/queries-<pid>.json` (SQL statements it sent to PostgreSQL in
// the phase) and, with BENCH_CPU_PROF, `<BENCH_OUT>/service-<pid>.cpuprofile`.
import cluster from 'node:cluster';
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { runClusterPrimary } from '../src/cluster.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { startJobs } from '../src/jobs/runner.js';
import { backgroundJobs } from '../src/wiring.js';

const config = loadConfig(process.env);
const outDir = process.env.BENCH_OUT;

if (config.workers > 1 && cluster.isPrimary) {
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === config.workers)
      process.stdout.write(`${JSON.stringify({ port: address.port, pid: process.pid })}\n`);
  });
  process.on('SIGUSR2', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGUSR2');
  });
  await runClusterPrimary({
    workers: config.workers,
    workerEnv: {},
    runJobs: true,
    onStopped: async () => {},
  });
} else {
  // Every statement any pool client sends (the drizzle and prepared-statement paths all end here).
  let queries = 0;
  const query = pg.Client.prototype.query;
  (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (
    this: unknown,
    ...args: unknown[]
  ) {
    queries++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  };

  const deps = await createDeps(config, {
    ...(process.env.SVC_TEST_SCHEMA ? { dbSchema: process.env.SVC_TEST_SCHEMA } : {}),
    poolSize: Number(process.env.BENCH_POOL_SIZE ?? 20),
  });
  const app = await buildApp(deps);
  // Cluster workers share one port: the primary's choice (0 = a free one, the same for every worker).
  await app.listen({ port: 0, host: '127.0.0.1' });
  const jobs = config.runJobs ? startJobs(deps, backgroundJobs, app.log) : undefined;

  const profiling = Boolean(process.env.BENCH_CPU_PROF);
  const { Session } = await import('node:inspector/promises');
  const session = profiling ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
  }
  let phaseStart: number | undefined;
  process.on('SIGUSR2', () => {
    if (phaseStart === undefined) {
      phaseStart = queries;
      if (session) void session.post('Profiler.start');
      return;
    }
    const sent = queries - phaseStart;
    phaseStart = undefined;
    if (outDir) writeFileSync(`${outDir}/queries-${process.pid}.json`, JSON.stringify({ queries: sent }));
    if (session && outDir)
      void session.post('Profiler.stop').then(({ profile }) => {
        writeFileSync(`${outDir}/service-${process.pid}.cpuprofile`, JSON.stringify(profile));
      });
  });
  // A clean exit when the benchmark stops us (pools closed, queued outcomes written).
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => jobs?.stop())
      .finally(() => process.exit(0));
  });
  if (cluster.isPrimary) {
    const address = app.server.address();
    process.stdout.write(
      `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, pid: process.pid })}\n`,
    );
  }
}
