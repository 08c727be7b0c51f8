// Accounts: creation (admin API, e-mail login, wallet sign-in, identity provider), lookups, suspension.
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/index.js';
import { isUniqueViolation, one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import type { AccountStatus } from '../../http/caller.js';
import { newId } from '../../lib/ids.js';
import { type CreatedApiKey, createApiKey } from '../keys/index.js';

export type { AccountStatus } from '../../http/caller.js';

export interface CreatedAccount {
  account_id: string;
  email: string;
  api_key: CreatedApiKey;
}

export interface AccountRef {
  id: string;
  status: AccountStatus;
  wallet_address: string | null;
}

/** E-mail addresses are compared case-insensitively: stored trimmed and lowercase (a CHECK enforces it). */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Admin: create an account for an e-mail address with a first API key, in one transaction. */
export async function createAccountWithKey(
  db: Database,
  email: string,
  name?: string,
): Promise<CreatedAccount> {
  const normalized = normalizeEmail(email);
  try {
    return await db.orm.transaction(async (tx) => {
      const id = newId('acc');
      await tx.execute(
        sql`INSERT INTO accounts (id, email, name) VALUES (${id}, ${normalized}, ${name ?? null})`,
      );
      const apiKey = await createApiKey(tx, id, 'default');
      return { account_id: id, email: normalized, api_key: apiKey };
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError('SVC-VAL-007', 'An account with this e-mail already exists');
    throw err;
  }
}

export async function accountExists(db: Database, accountId: string): Promise<boolean> {
  return (await one(db.orm, sql`SELECT 1 FROM accounts WHERE id = ${accountId}`)) !== undefined;
}

export async function findAccountByEmail(ex: Executor, email: string): Promise<AccountRef | undefined> {
  return one<AccountRef>(
    ex,
    sql`SELECT id, status, wallet_address FROM accounts WHERE email = ${normalizeEmail(email)}`,
  );
}

/**
 * The account of an e-mail address, created when there is none (first e-mail login). Safe against a
 * concurrent creation on another instance: the unique e-mail index decides, and the loser reads the winner.
 */
export async function findOrCreateAccountByEmail(ex: Executor, email: string): Promise<AccountRef> {
  const normalized = normalizeEmail(email);
  const created = await one<AccountRef>(
    ex,
    sql`INSERT INTO accounts (id, email) VALUES (${newId('acc')}, ${normalized})
        ON CONFLICT (email) DO NOTHING RETURNING id, status, wallet_address`,
  );
  const account = created ?? (await findAccountByEmail(ex, normalized));
  if (!account) throw new Error(`account for ${normalized} vanished`);
  return account;
}

/** The account of a wallet, created by its first valid signature. Addresses are stored lowercase. */
export async function findOrCreateAccountByWallet(ex: Executor, wallet: string): Promise<AccountRef> {
  const address = wallet.toLowerCase();
  const created = await one<AccountRef>(
    ex,
    sql`INSERT INTO accounts (id, wallet_address) VALUES (${newId('acc')}, ${address})
        ON CONFLICT (wallet_address) DO NOTHING RETURNING id, status, wallet_address`,
  );
  const account =
    created ??
    (await one<AccountRef>(
      ex,
      sql`SELECT id, status, wallet_address FROM accounts WHERE wallet_address = ${address}`,
    ));
  if (!account) throw new Error(`account for wallet ${address} vanished`);
  return account;
}

export interface AccountStatusChange {
  account_id: string;
  status: AccountStatus;
}

/**
 * Admin: suspend or reinstate an account, recording reason and time (accounts + account_status_events).
 * Takes effect on the next request on every instance: the resolver reads the status with each credential.
 * Suspending sends the account-suspended e-mail (queued in the same transaction); repeating a change that
 * is already in effect changes nothing and sends nothing. Unknown account: 404 SVC-AUTH-005.
 */
export async function changeAccountStatus(
  deps: AppDeps,
  accountId: string,
  target: 'suspended' | 'active',
  reason: string | undefined,
): Promise<AccountStatusChange> {
  const now = deps.clock.now().toISOString();
  return deps.db.orm.transaction(async (tx) => {
    const current = await one<{ status: AccountStatus }>(
      tx,
      sql`SELECT status FROM accounts WHERE id = ${accountId} FOR UPDATE`,
    );
    if (!current) throw new AppError('SVC-AUTH-005', `Account ${accountId} not found`);
    if (current.status === 'closed') {
      throw new AppError('SVC-VAL-007', `Account ${accountId} is closed; its status cannot change`);
    }
    if (current.status === target) return { account_id: accountId, status: target };
    await tx.execute(
      sql`UPDATE accounts SET status = ${target}, status_reason = ${reason ?? null},
                              status_changed_at = ${now}::timestamptz
          WHERE id = ${accountId}`,
    );
    await tx.execute(
      sql`INSERT INTO account_status_events (account_id, status, reason, created_at)
          VALUES (${accountId}, ${target}, ${reason ?? null}, ${now}::timestamptz)`,
    );
    if (target === 'suspended')
      await deps.hooks.run('account.suspended', tx, { accountId, reason: reason ?? null });
    return { account_id: accountId, status: target };
  });
}
