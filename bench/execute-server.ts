// The service under benchmark, in its own process (as in production): createDeps on the schema named
// by SVC_TEST_SCHEMA, background jobs running, prints `{"port": N}` once listening.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { startJobs } from '../src/jobs/runner.js';
import { backgroundJobs } from '../src/wiring.js';

const config = loadConfig(process.env);
const deps = await createDeps(config, {
  ...(process.env.SVC_TEST_SCHEMA ? { dbSchema: process.env.SVC_TEST_SCHEMA } : {}),
  poolSize: Number(process.env.BENCH_POOL_SIZE ?? 20),
});
const app = await buildApp(deps, { logger: { level: config.logLevel } });
await app.listen({ port: 0, host: '127.0.0.1' });
const jobs = startJobs(deps, backgroundJobs, app.log);
// BENCH_CPU_PROF=<dir>: SIGUSR2 starts the CPU profiler, the next SIGUSR2 writes <dir>/service-<n>.cpuprofile
// (so a profile covers one measured phase, not start-up and the other phases).
const profileDir = process.env.BENCH_CPU_PROF;
if (profileDir) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  let running = false;
  let n = 0;
  process.on('SIGUSR2', () => {
    running = !running;
    if (running) void session.post('Profiler.start');
    else
      void session.post('Profiler.stop').then(({ profile }) => {
        writeFileSync(`${profileDir}/service-${++n}.cpuprofile`, JSON.stringify(profile));
      });
  });
}
// A clean exit when the benchmark stops us (pools closed, queued outcomes written).
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => jobs.stop())
    .finally(() => process.exit(0));
});
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, pid: process.pid })}\n`,
);
