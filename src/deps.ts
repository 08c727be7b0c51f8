// Adapters wired once at start. Tests build the same object with test settings (test/helpers/app.ts).
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { Redis } from 'ioredis';
import { type ChainRuntime, createChainRuntime } from './adapters/chain/runtime.js';
import { createMailer, type Mailer } from './adapters/mailer.js';
import type { Config } from './config.js';
import { type Database, type Executor, openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import { type Clock, systemClock } from './lib/clock.js';
import { loadOrCreateSecret, randomBase62, randomHex } from './lib/secrets.js';

/** In-process events between modules (e.g. catalog changes invalidate discovery caches). */
export interface DomainEvents {
  'catalog.changed': [{ providerId: string }];
  /** A USDC deposit was credited (after commit): the notifications module mails the receipt. */
  'deposit.confirmed': [
    { id: string; accountId: string; txHash: string; amountCredits: bigint; newBalanceCredits: bigint },
  ];
  /** A paid call ended (execution); see CallFinished. */
  'call.finished': [CallFinished];
  /**
   * An account's `successful_payments` counter changed (a charged call, a confirmed deposit, a completed
   * payment; a refund lowers it): the rate limiter's trust-tier cache updates. `successfulPayments` is the
   * new value when the writer has it (from `RETURNING`), else the cached entry is dropped and read again.
   */
  'payments.counted': [{ accountId: string; successfulPayments?: bigint | undefined }];
  /** One debit statement carried `size` calls (1 = alone; more = coalesced into a batch). */
  'debit.statement': [{ size: number }];
}

/**
 * What happened to a paid call, for the business counters of /metrics (after the fact, never awaited).
 * `refused`: the debit was refused (402/403/401); `charged`: settled with the provider's 2xx/4xx;
 * `refunded`: the provider failed and the refund was written; `refund_pending`: left to the sweeper.
 */
export interface CallFinished {
  outcome: 'charged' | 'refunded' | 'refund_pending' | 'refused';
  credits: bigint;
}

export class EventBus extends EventEmitter<DomainEvents> {}

/**
 * Reactions that must commit or roll back with the event that causes them (an e-mail queued in the
 * outbox with the refund that it announces): the module where the event happens runs the hook inside its
 * transaction, the reacting module subscribes at wiring time (src/wiring.ts). Plain events that need no
 * transaction go on `events`. docs/architecture.md lists who raises and who handles each.
 */
export interface DomainHooks {
  /** Any decrease of a balance (debit, payment refund): low-balance and depleted mails. */
  'balance.decreased': { accountId: string; balanceBefore: bigint; balanceAfter: bigint };
  /** A call was refused by the daily limit; run on an executor that commits. */
  'daily-limit.reached': { accountId: string; limitCredits: bigint; spentCredits: bigint; day: string };
  /** A call was refused by the daily or total budget of its API key's policy; run on an executor that commits. */
  'key-limit.reached': {
    accountId: string;
    keyId: string;
    limitType: 'key_daily' | 'key_total';
    limitCredits: bigint;
    /** The key's spend in the budget's window (the UTC day, or in total), before the refused call. */
    spentCredits: bigint;
    /** The UTC day of the refusal, YYYY-MM-DD. */
    day: string;
  };
  'call.refunded': {
    accountId: string;
    callId: string;
    providerId: string;
    endpointSlug: string;
    credits: bigint;
    reason: string;
  };
  'payment.completed': {
    accountId: string;
    paymentId: string;
    amountUsdCents: number;
    credits: bigint;
    newBalance: bigint;
    receiptUrl?: string;
  };
  'account.suspended': { accountId: string; reason: string | null };
  /**
   * A platform transaction was mined (confirmed or reverted) or found dropped; raised by the chain module
   * in the transaction that records it, so the module that asked for it (e.g. payouts) records it too.
   */
  'platform-tx.finished': {
    id: string;
    purpose: string;
    reference: string;
    status: 'confirmed' | 'reverted' | 'dropped';
    txHash: string;
    blockNumber: bigint | null;
  };
  /** A provider payout was confirmed on-chain (payouts): the owner's e-mail. */
  'settlement.paid': {
    accountId: string;
    settlementId: string;
    providerId: string;
    amountCredits: bigint;
    grossCredits: bigint;
    feeCredits: bigint;
    walletAddress: string;
    txHash: string;
  };
  /** A provider payout failed (refused by the node or reverted): the owner's e-mail. */
  'settlement.failed': {
    accountId: string;
    settlementId: string;
    providerId: string;
    amountCredits: bigint;
    reason: string;
  };
  /** An e-mail login code was issued; it must reach the address (`accountId` when one exists). */
  'login-code.issued': { email: string; code: string; codeId: string; accountId?: string; now: Date };
}

type HookHandler<K extends keyof DomainHooks> = (ex: Executor, payload: DomainHooks[K]) => Promise<void>;

/** Awaited, in-transaction hooks (see DomainHooks). One handler per (hook, subscriber). */
export class Hooks {
  private readonly handlers = new Map<keyof DomainHooks, Map<string, HookHandler<never>>>();

  /** Subscribes `subscriber` (a module name) to `name`; subscribing again replaces its handler. */
  on<K extends keyof DomainHooks>(name: K, subscriber: string, handler: HookHandler<K>): void {
    const forName = this.handlers.get(name) ?? new Map<string, HookHandler<never>>();
    forName.set(subscriber, handler as HookHandler<never>);
    this.handlers.set(name, forName);
  }

  async run<K extends keyof DomainHooks>(name: K, ex: Executor, payload: DomainHooks[K]): Promise<void> {
    for (const handler of this.handlers.get(name)?.values() ?? []) {
      await (handler as HookHandler<K>)(ex, payload);
    }
  }
}

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
  /** In-transaction reactions of other modules (see DomainHooks). */
  hooks: Hooks;
  secrets: Secrets;
  /** E-mail transport: SMTP when SMTP_URL is set, else .eml files under <data dir>/outbox. */
  mailer: Mailer;
  /** The chain: RPC client, USDC and platform wallet, the platform key's signer (docs/architecture.md). */
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
    hooks: new Hooks(),
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
