// Accounts: creation (admin API, e-mail login, wallet sign-in) and lookups.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import { isUniqueViolation, one } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';
import { newId } from '../../lib/ids.js';
import { type CreatedApiKey, createApiKey } from '../keys/service.js';

export interface CreatedAccount {
  account_id: string;
  email: string;
  api_key: CreatedApiKey;
}

/** Admin: create an account for an e-mail address with a first API key, in one transaction. */
export async function createAccountWithKey(
  db: Database,
  email: string,
  name?: string,
): Promise<CreatedAccount> {
  const normalized = email.trim().toLowerCase();
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
