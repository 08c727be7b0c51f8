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

/**
 * The account a wallet is linked to (docs/auth.md), or a new account linked to it when the wallet
 * is not linked anywhere (its first valid signature). Addresses are stored lowercase. Concurrent first
 * signatures (on any instance) end in one account: the link's primary key decides, the loser's account
 * creation is rolled back with its transaction.
 */
export async function findOrCreateAccountByWallet(ex: Executor, wallet: string): Promise<AccountRef> {
  const address = wallet.toLowerCase();
  const linked = () =>
    one<AccountRef>(
      ex,
      sql`SELECT a.id, a.status, a.wallet_address FROM wallet_links l JOIN accounts a ON a.id = l.account_id
          WHERE l.wallet_address = ${address}`,
    );
  const existing = await linked();
  if (existing) return existing;
  try {
    return await ex.transaction(async (tx) => {
      // The account's own wallet column is set only when no other account still holds it.
      const account = await one<AccountRef>(
        tx,
        sql`INSERT INTO accounts (id, wallet_address)
            VALUES (${newId('acc')}, CASE WHEN EXISTS (SELECT 1 FROM accounts WHERE wallet_address = ${address})
                                          THEN NULL ELSE ${address} END)
            RETURNING id, status, wallet_address`,
      );
      if (!account) throw new Error('account insert returned no row');
      await tx.execute(
        sql`INSERT INTO wallet_links (wallet_address, account_id) VALUES (${address}, ${account.id})`,
      );
      return account;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await linked();
    if (!winner) throw new Error(`account for wallet ${address} vanished`);
    return winner;
  }
}

export interface AccountStatusChange {
  account_id: string;
  status: AccountStatus;
}

/**
 * Admin: suspend or reinstate an account, recording reason and time (accounts + account_status_events).
 * Takes effect on the next request on every instance: the resolver reads the status with each credential.
 * Suspending sends the account-suspended e-mail (queued in the same transaction); repeating a change that
 * is already in effect changes nothing and sends nothing. Unknown account: 404 SVC-AUTH-006.
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
    if (!current) throw new AppError('SVC-AUTH-006', `Account ${accountId} not found`);
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
