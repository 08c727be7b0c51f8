import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files whose behaviour does not depend on the database or the counters store: a browser, child
 * processes (CLI, stdio relay), the client SDK over HTTP, the in-memory discovery index, pure functions.
 * CI runs the suite twice (PGlite + in-process counters, then PostgreSQL + Redis); these run in the first
 * run only, when SVC_TEST_DATABASE_ONLY=1 is set for the second. Nothing that checks money, a ledger, a
 * SQL statement or a counter belongs here.
 */
export const DATABASE_INDEPENDENT = [
  'test/dashboard/dashboard.test.ts',
  'test/dashboard/serving.test.ts',
  'test/cli/user-cli.test.ts',
  'test/mcp/stdio.test.ts',
  'packages/client/test/client.test.ts',
  'packages/client/test/drift.test.ts',
  'packages/client/test/failover.test.ts',
  'test/discovery/embeddings.test.ts',
  'test/discovery/match-quality.test.ts',
  'test/discovery/ranking.test.ts',
  'test/foundation/error-catalogue.test.ts',
  'test/foundation/ids.test.ts',
  'test/ratelimit/config.test.ts',
  'test/x402/protocol.test.ts',
  'test/x402/remote-facilitator.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.SVC_TEST_DATABASE_ONLY === '1' ? DATABASE_INDEPENDENT : []),
    ],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Each file builds its own app on its own database, so files run in parallel safely.
    fileParallelism: true,
  },
});
