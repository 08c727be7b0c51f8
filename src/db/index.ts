// Database adapter: embedded PGlite (default) or PostgreSQL, behind one Drizzle instance.
// Same migrations, same queries on both. int8 columns arrive as `bigint` on both drivers.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';

export type Orm = PgDatabase<PgQueryResultHKT>;
export type Tx = Parameters<Parameters<Orm['transaction']>[0]>[0];
/** Anything that can run a query: the database itself or an open transaction. */
export type Executor = Orm | Tx;

export interface Database {
  kind: 'pglite' | 'postgres';
  orm: Orm;
  /**
   * Runs `fn` in one transaction whose `exec` takes multi-statement SQL text (simple query protocol):
   * what migrations need. Returns the rows of the last statement.
   */
  scriptTransaction<T>(
    fn: (exec: (sqlText: string) => Promise<Record<string, unknown>[]>) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
  /** PGlite only: a dump that `pgliteTemplate` can start from. */
  dumpForTemplate?(): Promise<Blob>;
}

const INT8 = 20;

export interface DatabaseOptions {
  /** PostgreSQL URL; absent = embedded PGlite. */
  url?: string | undefined;
  /** PGlite data directory; absent = in-memory (tests). */
  dataDir?: string | undefined;
  /** PostgreSQL schema to use (tests isolate each app in its own schema). */
  schema?: string | undefined;
  poolSize?: number;
  /** In-memory PGlite started from a dump of an already-migrated database (tests: ~10x faster than initdb). */
  pgliteTemplate?: Blob | undefined;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts.schema, opts.poolSize ?? 20);
  return openPglite(opts.dataDir, opts.pgliteTemplate);
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number): Promise<Database> {
  // Global on purpose: Drizzle's per-query parsers fall back to the global table.
  pg.types.setTypeParser(INT8, (v: string) => BigInt(v));
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client's error (e.g. server restart) must not crash the process.
  pool.on('error', () => {});
  if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const orm = drizzlePg(pool) as unknown as Orm;
  return {
    kind: 'postgres',
    orm,
    async scriptTransaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(async (text) => {
          const r = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
          const last = Array.isArray(r) ? r[r.length - 1] : r;
          return (last?.rows ?? []) as Record<string, unknown>[];
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

/** A second process opening the same embedded database would corrupt it; it is refused at once. */
export class DataDirLocked extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/**
 * Takes `<dataDir>.lock` (holding our pid) or throws DataDirLocked naming the live process that holds it.
 * A lock left by a dead process (kill -9) is taken over. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(holder) && isAlive(holder)) {
        throw new DataDirLocked(
          `the embedded database ${dataDir} is in use by process ${holder} (a running svc?); ` +
            'stop it, or use the admin API of the running service',
        );
      }
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new DataDirLocked(`could not lock ${dataDir}`);
}

async function openPglite(dataDir: string | undefined, template: Blob | undefined): Promise<Database> {
  if (dataDir) mkdirSync(path.dirname(dataDir), { recursive: true });
  const release = dataDir ? lockDataDir(dataDir) : () => {};
  const client = await PGlite.create(dataDir, {
    parsers: { [INT8]: (v: string) => BigInt(v) },
    ...(template && !dataDir ? { loadDataDir: template } : {}),
  }).catch((err: unknown) => {
    release();
    throw err;
  });
  const orm = drizzlePglite(client) as unknown as Orm;
  return {
    kind: 'pglite',
    orm,
    async dumpForTemplate() {
      return client.dumpDataDir('none');
    },
    async scriptTransaction(fn) {
      return client.transaction(async (tx) =>
        fn(async (text) => {
          const results = await tx.exec(text);
          return (results[results.length - 1]?.rows ?? []) as Record<string, unknown>[];
        }),
      );
    },
    async close() {
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
}

/** Runs a raw query and returns its rows, the same way on both drivers. */
export async function rows<T>(ex: Executor, query: SQL): Promise<T[]> {
  const result = (await ex.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export async function one<T>(ex: Executor, query: SQL): Promise<T | undefined> {
  return (await rows<T>(ex, query))[0];
}

/**
 * Raw rows carry timestamps as PostgreSQL text ("2026-11-22 07:52:19.123+00") on both drivers (Drizzle
 * asks for that); this turns one into a Date. Prefer selecting what you need and converting here.
 */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value !== 'string') throw new TypeError(`not a timestamp: ${String(value)}`);
  const iso = value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new TypeError(`not a timestamp: ${value}`);
  return d;
}

export const toIso = (value: unknown) => toDate(value).toISOString();

/** PostgreSQL error codes we map to domain behaviour in one place. */
export function pgErrorCode(err: unknown): string | undefined {
  let e: unknown = err;
  // Drizzle wraps driver errors; walk the cause chain.
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

// Connection-level failures: the database is unreachable, restarting or refusing connections, as opposed
// to a query it answered with an error. These become 503 SVC-SYS-002 (clients back off and retry).
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /PGlite is closed/i,
  /Client has encountered a connection error/i,
  /Cannot use a pool after calling end/i,
];

export function isDatabaseUnavailable(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      // 08xxx connection exceptions; 57P01-57P03 admin shutdown, crash shutdown, cannot connect now.
      if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || UNAVAILABLE_SYSTEM_CODES.has(code)) {
        return true;
      }
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === '23505';
