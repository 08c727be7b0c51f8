// The providers module's own tables: listing changes held for review (`provider_listing_changes`) and
// payout wallets (`payout_wallets`, read by the settlement job).
import { sql } from 'drizzle-orm';
import { type Executor, one, rows, toIso } from '../../db/index.js';
import type { ProviderInput } from '../catalog/index.js';

export interface PendingChange {
  input: ProviderInput;
  requestedAt: string;
}

export async function loadPendingChange(
  ex: Executor,
  providerId: string,
): Promise<PendingChange | undefined> {
  const row = await one<{ input: ProviderInput | string; requested_at: unknown }>(
    ex,
    sql`SELECT input, requested_at FROM provider_listing_changes WHERE provider_id = ${providerId}`,
  );
  if (!row) return undefined;
  const input = typeof row.input === 'string' ? (JSON.parse(row.input) as ProviderInput) : row.input;
  return { input, requestedAt: toIso(row.requested_at) };
}

/** Providers with a change waiting for review. */
export async function providersWithPendingChanges(ex: Executor): Promise<string[]> {
  const found = await rows<{ provider_id: string }>(
    ex,
    sql`SELECT provider_id FROM provider_listing_changes`,
  );
  return found.map((r) => r.provider_id);
}

/** Stores (or replaces: the newest submission wins) the change waiting for review. */
export async function savePendingChange(
  ex: Executor,
  providerId: string,
  input: ProviderInput,
  now: Date,
): Promise<PendingChange> {
  const at = now.toISOString();
  await ex.execute(sql`
    INSERT INTO provider_listing_changes (provider_id, input, requested_at)
    VALUES (${providerId}, ${JSON.stringify(input)}::json, ${at})
    ON CONFLICT (provider_id) DO UPDATE SET input = EXCLUDED.input, requested_at = EXCLUDED.requested_at`);
  return { input, requestedAt: toIso(at) };
}

/** Drops the pending change; with `requestedAt`, only that one (not a newer submission). */
export async function dropPendingChange(
  ex: Executor,
  providerId: string,
  requestedAt?: string,
): Promise<void> {
  await ex.execute(
    requestedAt === undefined
      ? sql`DELETE FROM provider_listing_changes WHERE provider_id = ${providerId}`
      : sql`DELETE FROM provider_listing_changes WHERE provider_id = ${providerId}
              AND requested_at = ${requestedAt}`,
  );
}

export interface PayoutWallet {
  wallet_address: string | null;
  updated_at: string | null;
}

export async function findPayoutWallet(ex: Executor, accountId: string): Promise<PayoutWallet> {
  const row = await one<{ wallet_address: string; updated_at: unknown }>(
    ex,
    sql`SELECT wallet_address, updated_at FROM payout_wallets WHERE account_id = ${accountId}`,
  );
  return row
    ? { wallet_address: row.wallet_address, updated_at: toIso(row.updated_at) }
    : { wallet_address: null, updated_at: null };
}

export async function upsertPayoutWallet(ex: Executor, accountId: string, address: string, now: Date) {
  await ex.execute(sql`
    INSERT INTO payout_wallets (account_id, wallet_address, updated_at)
    VALUES (${accountId}, ${address}, ${now.toISOString()})
    ON CONFLICT (account_id) DO UPDATE SET wallet_address = EXCLUDED.wallet_address,
                                           updated_at = EXCLUDED.updated_at`);
}
