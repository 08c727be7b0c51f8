// The service under the discovery benchmark, in its own process (as deployed): createDeps on the schema
// named by SVC_TEST_SCHEMA, listening on a free loopback port; prints `{"port": N, "pid": N}` once up.
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
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, pid: process.pid })}\n`,
);
