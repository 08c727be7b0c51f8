// Builds the real app on a fresh database for each test file: in-memory PGlite by default, or a fresh
// PostgreSQL schema when DATABASE_URL is set; Redis (with a unique key prefix) when REDIS_URL is set.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type AppDeps, closeDeps, createDeps } from '../../src/deps.js';
import type { Clock } from '../../src/lib/clock.js';
import { randomHex } from '../../src/lib/secrets.js';
import { loadPgliteTemplate } from './pglite-template.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
  config: Config;
  /** PostgreSQL schema (undefined on PGlite); pass to another createTestApp to share the database. */
  schema: string | undefined;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** Admin API call with the admin token. */
  admin(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse>;
  /** Creates an account through the admin API; returns its id and first API key. */
  createAccount(email?: string): Promise<{ accountId: string; apiKey: string; keyId: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Share an existing PostgreSQL schema (a second instance of the service). */
  schema?: string;
  /** Share a PGlite-backed deps object is not possible across processes; for PGlite pass nothing. */
  logger?: boolean | Record<string, unknown>;
}

let counter = 0;

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const config = loadConfig({
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SVC_ENCRYPTION_KEY: 'a'.repeat(64),
    SVC_SAMPLE_PROVIDERS: 'off',
    LOG_LEVEL: 'silent',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...opts.env,
  });
  const schema = config.databaseUrl
    ? (opts.schema ?? `t_${process.pid}_${++counter}_${randomHex(4)}`)
    : undefined;
  const deps = await createDeps(config, {
    inMemoryDb: true,
    dbSchema: schema,
    ...(config.databaseUrl ? {} : { pgliteTemplate: await loadPgliteTemplate() }),
    redisPrefix: `test:${schema ?? randomHex(6)}:`,
    poolSize: 10,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const app = await buildApp(deps, { logger: opts.logger ?? false });
  await app.ready();
  const ownsSchema = schema !== undefined && opts.schema === undefined;

  const inject = (o: InjectOptions) => app.inject(o);
  return {
    app,
    deps,
    config,
    schema,
    inject,
    admin: (method, url, payload) =>
      app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
      }),
    async createAccount(email) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/admin/accounts',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { email: email ?? `user${++counter}_${randomHex(4)}@example.com` },
      });
      if (res.statusCode !== 201) throw new Error(`createAccount failed: ${res.statusCode} ${res.body}`);
      const data = res.json().data;
      return { accountId: data.account_id, apiKey: data.api_key.key, keyId: data.api_key.id };
    },
    async close() {
      await app.close();
      await closeDeps(deps);
      if (ownsSchema && config.databaseUrl) await dropSchema(config.databaseUrl, schema as string);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function dropSchema(url: string, schema: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
