// The service under the discovery benchmark, in its own process (as deployed): createDeps on the schema
// named by SVC_TEST_SCHEMA, listening on a free loopback port; prints `{"port": N, "pid": N}` once up.
import v8 from 'node:v8';
import vm from 'node:vm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';

const config = loadConfig(process.env);
const deps = await createDeps(config, {
  ...(process.env.SVC_TEST_SCHEMA ? { dbSchema: process.env.SVC_TEST_SCHEMA } : {}),
  poolSize: 10,
});
const app = await buildApp(deps, { logger: { level: config.logLevel } });
await app.listen({ port: 0, host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void app.close().finally(() => process.exit(0));
});
// SIGUSR2: one line with this process's memory by kind (the benchmark's breakdown of its growth).
process.on('SIGUSR2', () => {
  const before = process.memoryUsage();
  // What is live: a full collection first (the heap's size before it is what the load left).
  v8.setFlagsFromString('--expose_gc');
  (vm.runInNewContext('gc') as () => void)();
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round(n / 2 ** 20);
  const memory = {
    rss: mb(before.rss),
    heapTotal: mb(before.heapTotal),
    heapUsed: mb(before.heapUsed),
    heapLive: mb(m.heapUsed),
    external: mb(m.external),
  };
  process.stdout.write(`${JSON.stringify({ memory })}\n`);
});
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, pid: process.pid, memoryReport: true })}\n`);
