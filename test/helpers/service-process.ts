// A real service process for crash tests: builds the app with createDeps on the database named by the
// environment (DATABASE_URL + SVC_TEST_SCHEMA, or the PGlite data dir under SVC_DATA_DIR), listens on a
// free loopback port and prints `{"port": N}` on stdout. Background jobs are not started, so a test
// controls when the sweeper runs.
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';

const config = loadConfig(process.env);
const deps = await createDeps(config, {
  ...(process.env.SVC_TEST_SCHEMA ? { dbSchema: process.env.SVC_TEST_SCHEMA } : {}),
  poolSize: 4,
});
const app = await buildApp(deps, { logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
);
