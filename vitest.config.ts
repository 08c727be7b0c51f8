import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files whose behaviour does not depend on the database or the counters store: a browser, child
 * processes (CLI, stdio relay), the client SDK over HTTP, the in-memory discovery index, pure functions.
 * CI runs the suite twice (PGlite + in-process counters, then PostgreSQL + Redis); these run in the first
 * run only, when SVC_TEST_DATABASE_ONLY=1 is set for the second. Nothing that checks money, a ledger, a
 * SQL statement or a counter belongs here.
 */
export const DATABASE_INDEPENDENT = [
  'test/dashboard/dashboard.test.ts',
  'test/dashboard/account.test.ts',
  'test/dashboard/deposit.test.ts',
  'test/dashboard/serving.test.ts',
  'test/cli/user-cli.test.ts',
  'test/cli/deposit-cli.test.ts',
  'test/hardening/admin-cli.test.ts', // always the embedded database: that is what it tests
  'test/mcp/stdio.test.ts',
  'packages/client/test/client.test.ts',
  'packages/client/test/drift.test.ts',
  'packages/client/test/failover.test.ts',
  'packages/client/test/x402.test.ts',
  'test/discovery/embeddings.test.ts',
  'test/discovery/match-quality.test.ts',
  'test/discovery/ranking.test.ts',
  'test/discovery/ranking-exact.test.ts',
  'test/discovery/int8-rows.test.ts',
  'test/discovery/slot-vectors.test.ts',
  'test/discovery/late-interaction.test.ts',
  'test/discovery/row-bounds.test.ts',
  'test/discovery/wordpiece.test.ts',
  'test/discovery/ranking-turns.test.ts',
  'test/foundation/error-catalogue.test.ts',
  'test/foundation/ids.test.ts',
  'test/ratelimit/config.test.ts',
  'test/x402/protocol.test.ts',
  'test/x402/remote-facilitator.test.ts',
];

/**
 * The longest files (child processes, a browser, thousands of calls), started first so that neither worker
 * is left running one of them alone at the end. Without it a clean checkout (no timing cache) orders the
 * files by size.
 */
const SLOW_FIRST = [
  'test/cli/user-cli.test.ts',
  'test/payouts/crash.test.ts',
  'test/hardening/admin-cli.test.ts',
  'test/execution/crash.test.ts',
  'test/foundation/cluster.test.ts',
  'test/dashboard/dashboard.test.ts',
  'test/execution/concurrency.test.ts',
  'test/discovery/embeddings.test.ts',
  'test/hardening/outage.test.ts',
  'test/execution/group-debit.test.ts',
  'test/ledger/invariants.test.ts',
  'test/chain/foundation.test.ts',
  'packages/client/test/failover.test.ts',
  'test/deposits/watcher-links.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((s) => f.moduleId.endsWith(s));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: SlowFirst },
    pool: 'forks',
    // isolate: false — a worker runs file after file in one process, importing the service's modules once
    // instead of once per file (that import was most of a small file's time). Safe because each file builds
    // its own app on its own database and the service keeps no per-process state but read-only caches.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    // Each file builds its own app on its own database, so files run in parallel safely.
    fileParallelism: true,
  },
});
