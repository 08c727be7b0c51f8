// Trust tier of an account (docs/ratelimit.md): read from the counter column accounts.successful_payments,
// kept per instance for a few seconds so the hot path does no query. Modules that change the counter emit
// `payments.counted` on the app's event bus, so the new tier applies on the very next request on this
// instance; other instances pick it up within SVC_TRUST_TIER_CACHE_SECONDS.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { one } from '../../db/index.js';
import type { AppDeps, DomainEvents } from '../../deps.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { type EffectiveLimits, tierForPayments } from './limits.js';
import type { TrustTier } from './status.js';

interface Entry {
  /** undefined for a wallet that no account has claimed yet. */
  accountId: string | undefined;
  payments: bigint;
  expiresAt: number;
}

interface AccountRow {
  id: string;
  successful_payments: bigint;
  wallet_address: string | null;
}

const MAX_ENTRIES = 50_000;

export class TrustTierCache {
  private readonly entries = new BoundedMap<string, Entry>(MAX_ENTRIES);
  /** account id -> its wallet entry key, so an invalidation reaches the wallet-keyed entry too. */
  private readonly walletOfAccount = new Map<string, string>();
  /** Bumped by every invalidation: a read under way across one may predate the new count, so it is not
   *  kept (it still answers the request that asked, which came before the count moved). */
  private invalidations = 0;

  constructor(
    private readonly deps: AppDeps,
    private readonly limits: EffectiveLimits,
    private readonly log: FastifyBaseLogger,
  ) {}

  private readonly onCounted = ({ accountId, successfulPayments }: DomainEvents['payments.counted'][0]) =>
    this.invalidate(accountId, successfulPayments);

  open(): void {
    this.deps.events.on('payments.counted', this.onCounted);
  }

  close(): void {
    this.deps.events.off('payments.counted', this.onCounted);
  }

  tierOf(payments: bigint): TrustTier {
    return tierForPayments(payments, this.limits.thresholds);
  }

  async forAccount(accountId: string): Promise<TrustTier> {
    const entry = await this.lookup(`a:${accountId}`, () =>
      one<AccountRow>(
        this.deps.db.orm,
        sql`SELECT id, successful_payments, wallet_address FROM accounts WHERE id = ${accountId}`,
      ),
    );
    return this.tierOf(entry.payments);
  }

  /** Tier of the account that owns this (lowercase) wallet address; 'new' when none does. */
  async forWallet(wallet: string): Promise<TrustTier> {
    const entry = await this.lookup(`w:${wallet}`, () =>
      one<AccountRow>(
        this.deps.db.orm,
        sql`SELECT id, successful_payments, wallet_address FROM accounts WHERE wallet_address = ${wallet}`,
      ),
    );
    return this.tierOf(entry.payments);
  }

  invalidate(accountId: string, successfulPayments?: bigint | number): void {
    this.invalidations += 1;
    const keys = [`a:${accountId}`];
    const walletKey = this.walletOfAccount.get(accountId);
    if (walletKey) keys.push(walletKey);
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (!entry) continue;
      if (successfulPayments === undefined) this.entries.delete(key);
      else entry.payments = BigInt(successfulPayments);
    }
  }

  private async lookup(key: string, read: () => Promise<AccountRow | undefined>): Promise<Entry> {
    const now = this.deps.clock.now().getTime();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached;
    const invalidations = this.invalidations;
    let row: AccountRow | undefined;
    try {
      row = await read();
    } catch (err) {
      // The database being unavailable must not take rate limiting down with it: lowest tier, not cached.
      this.log.warn({ err }, 'trust tier lookup failed; using tier "new" for this request');
      return { accountId: undefined, payments: 0n, expiresAt: 0 };
    }
    const entry: Entry = {
      accountId: row?.id,
      payments: row ? BigInt(row.successful_payments) : 0n,
      expiresAt: now + this.limits.trustTierCacheMs,
    };
    if (this.limits.trustTierCacheMs > 0 && this.invalidations === invalidations)
      this.remember(key, entry, row);
    return entry;
  }

  private remember(key: string, entry: Entry, row: AccountRow | undefined): void {
    // Re-inserted, so a refreshed entry counts as the newest.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (row?.wallet_address) this.walletOfAccount.set(row.id, `w:${row.wallet_address}`);
    if (this.walletOfAccount.size >= MAX_ENTRIES) this.walletOfAccount.clear();
  }
}
