// Adapters wired once at start. Tests build the same object with test settings (test/helpers/app.ts).
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import { type Clock, systemClock } from './lib/clock.js';
import { loadOrCreateSecret, randomBase62, randomHex } from './lib/secrets.js';
import { type ChainRuntime, createChainRuntime } from './modules/chain/index.js';
import { createMailer, type Mailer } from './modules/notifications/mailer.js';

/** In-process events between modules (e.g. catalog changes invalidate discovery caches). */
export interface DomainEvents {
  'catalog.changed': [{ providerId: string }];
  /** A USDC deposit was credited (after commit): the notifications module mails the receipt. */
  'deposit.confirmed': [
    { id: string; accountId: string; txHash: string; amountCredits: bigint; newBalanceCredits: bigint },
  ];
}

export class EventBus extends EventEmitter<DomainEvents> {}

export interface Secrets {
  adminToken: string;
  /** True when the admin token was generated on this start (print it once). */
  adminTokenCreated: boolean;
  encryptionKey: Buffer;
  sessionSecret: string;
}

export interface AppDeps {
  config: Config;
  db: Database;
  /** Present when REDIS_URL is set: shared counters and caches. */
  redis: Redis | undefined;
  /** Prefix for every Redis key (tests isolate themselves with it). */
  redisPrefix: string;
  clock: Clock;
  events: EventBus;
  secrets: Secrets;
  /** E-mail transport: SMTP when SMTP_URL is set, else .eml files under <data dir>/outbox. */
  mailer: Mailer;
  /** The chain: RPC client, USDC and platform wallet, the platform key's signer (DESIGN.md section 10). */
  chain: ChainRuntime;
}

export function loadSecrets(config: Config): Secrets {
  const admin = config.adminToken
    ? { value: config.adminToken, created: false }
    : loadOrCreateSecret(config.dataDir, 'admin-token', () => `svc_admin_${randomBase62(40)}`);
  const enc = config.encryptionKey
    ? { value: config.encryptionKey }
    : loadOrCreateSecret(config.dataDir, 'encryption-key', () => randomHex(32));
  const session = config.auth.sessionSecret
    ? { value: config.auth.sessionSecret }
    : loadOrCreateSecret(config.dataDir, 'session-secret', () => randomHex(32));
  return {
    adminToken: admin.value,
    adminTokenCreated: admin.created,
    encryptionKey: Buffer.from(enc.value, 'hex'),
    sessionSecret: session.value,
  };
}

export interface CreateDepsOptions {
  clock?: Clock;
  /** PostgreSQL schema (tests). */
  dbSchema?: string;
  /** In-memory PGlite instead of the data dir (tests). */
  inMemoryDb?: boolean;
  /** Start the in-memory PGlite from this migrated dump (tests). */
  pgliteTemplate?: Blob;
  redisPrefix?: string;
  poolSize?: number;
}

export async function createDeps(config: Config, opts: CreateDepsOptions = {}): Promise<AppDeps> {
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: opts.inMemoryDb ? undefined : path.join(config.dataDir, 'pglite'),
    schema: opts.dbSchema,
    pgliteTemplate: opts.pgliteTemplate,
    poolSize: opts.poolSize,
  });
  await migrate(db);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 })
    : undefined;
  // Connection errors are handled where Redis is used (fallbacks); don't crash on 'error' events.
  redis?.on('error', () => {});
  return {
    config,
    db,
    redis,
    redisPrefix: opts.redisPrefix ?? 'svc:',
    clock: opts.clock ?? systemClock,
    events: new EventBus(),
    secrets: loadSecrets(config),
    mailer: createMailer(config),
    chain: createChainRuntime(config),
  };
}

export async function closeDeps(deps: AppDeps) {
  deps.redis?.disconnect();
  deps.mailer.close();
  await deps.db.close();
}
