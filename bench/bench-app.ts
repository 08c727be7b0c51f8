// The service as the benchmarks run it in-process: in-memory PGlite, devnet, no sample providers, a known
// admin token, rate limits out of the way; and a catalogue loaded into it through the admin API. One home
// for that set-up (bench/discovery.ts, bench/unseen-check.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { closeDeps, createDeps } from '../src/deps.js';
import type { DevProvider } from './discovery-metrics.js';

export const BENCH_ADMIN = 'bench-admin-token-0123456789abcdef';

/** A built, ready app and how to close it (its data directory goes with it). */
export async function startBenchApp(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const config = loadConfig({
    ...env,
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: BENCH_ADMIN,
    SVC_ENCRYPTION_KEY: 'b'.repeat(64),
    SVC_SAMPLE_PROVIDERS: 'off',
    SVC_RATE_LIMIT_MULTIPLIER: '1000000',
    LOG_LEVEL: 'silent',
  });
  const deps = await createDeps(config, { inMemoryDb: true });
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await closeDeps(deps);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates each provider through the admin API; what it refused, one line per provider. */
export async function createProviders(app: FastifyInstance, providers: DevProvider[]): Promise<string[]> {
  const refused: string[] = [];
  for (const p of providers) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/admin/providers',
      headers: { authorization: `Bearer ${BENCH_ADMIN}` },
      payload: { ...p, base_url: 'http://127.0.0.1:9' },
    });
    if (res.statusCode !== 201) refused.push(`${p.provider_id}: ${res.statusCode} ${res.body}`);
  }
  return refused;
}
