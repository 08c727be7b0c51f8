// Linked wallets (docs/deposits.md): a wallet belongs to at most one account (wallet_links' primary
// key). Linking proves control with a signature of a challenge from POST /v1/auth/challenge. A linked
// wallet is an identity (it signs in, docs/auth.md), so auth owns the table; deposits, payouts and x402
// read it through these functions.
import { sql } from 'drizzle-orm';
import { type Executor, one, rows, toIso } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { verifyChallengeSignature } from './wallet-signin.js';

export interface WalletLink {
  wallet_address: string;
  linked_at: string;
}

export async function listLinks(ex: Executor, accountId: string): Promise<WalletLink[]> {
  const found = await rows<{ wallet_address: string; linked_at: unknown }>(
    ex,
    sql`SELECT wallet_address, linked_at FROM wallet_links WHERE account_id = ${accountId}
        ORDER BY linked_at, wallet_address`,
  );
  return found.map((r) => ({ wallet_address: r.wallet_address, linked_at: toIso(r.linked_at) }));
}

/** Lowercase addresses of the account's linked wallets. */
export async function linkedWallets(ex: Executor, accountId: string): Promise<Set<string>> {
  return new Set((await listLinks(ex, accountId)).map((l) => l.wallet_address));
}

/** The account a wallet is linked to, for many wallets at once. */
export async function accountsOfWallets(ex: Executor, wallets: string[]): Promise<Map<string, string>> {
  if (wallets.length === 0) return new Map();
  const found = await rows<{ wallet_address: string; account_id: string }>(
    ex,
    sql`SELECT wallet_address, account_id FROM wallet_links
        WHERE wallet_address IN (${sql.join(
          wallets.map((w) => sql`${w.toLowerCase()}`),
          sql`, `,
        )})`,
  );
  return new Map(found.map((r) => [r.wallet_address, r.account_id]));
}

/**
 * Links a wallet after checking the challenge signature: 401 SVC-AUTH-001 for a bad signature or an
 * unknown/expired/foreign nonce, 409 SVC-VAL-007 when the wallet is linked to another account. Linking a
 * wallet already linked to this account answers with the existing link.
 */
export async function linkWallet(
  deps: AppDeps,
  accountId: string,
  input: { wallet_address: string; nonce: string; signature: string },
): Promise<WalletLink> {
  const address = input.wallet_address.toLowerCase();
  if (!(await verifyChallengeSignature(deps, address, input.nonce, input.signature))) {
    throw new AppError('SVC-AUTH-001', 'Invalid wallet signature or expired nonce');
  }
  const now = deps.clock.now().toISOString();
  const inserted = await one<{ wallet_address: string; account_id: string; linked_at: unknown }>(
    deps.db.orm,
    sql`INSERT INTO wallet_links (wallet_address, account_id, linked_at) VALUES (${address}, ${accountId}, ${now})
        ON CONFLICT (wallet_address) DO UPDATE SET wallet_address = wallet_links.wallet_address
        RETURNING wallet_address, account_id, linked_at`,
  );
  if (!inserted || inserted.account_id !== accountId) {
    throw new AppError('SVC-VAL-007', 'This wallet is linked to another account');
  }
  return { wallet_address: inserted.wallet_address, linked_at: toIso(inserted.linked_at) };
}

/**
 * Unlinks a wallet: 404 SVC-VAL-006 when it is not linked to this account; 409 SVC-VAL-007 when it is the
 * account's last way to sign in (no e-mail, no external identity, no other linked wallet).
 */
export async function unlinkWallet(deps: AppDeps, accountId: string, wallet: string): Promise<void> {
  const address = wallet.toLowerCase();
  await deps.db.orm.transaction(async (tx) => {
    // Serialises concurrent unlinks of one account, so two cannot each leave "another way" behind.
    const account = await one<{ email: string | null; wallet_address: string | null }>(
      tx,
      sql`SELECT email, wallet_address FROM accounts WHERE id = ${accountId} FOR UPDATE`,
    );
    const link = await one(
      tx,
      sql`SELECT 1 FROM wallet_links WHERE wallet_address = ${address} AND account_id = ${accountId}`,
    );
    if (!account || !link) throw new AppError('SVC-VAL-006', 'This wallet is not linked to the account');
    const others = await one<{ n: bigint }>(
      tx,
      sql`SELECT (SELECT count(*) FROM wallet_links WHERE account_id = ${accountId} AND wallet_address <> ${address})
               + (SELECT count(*) FROM auth_identities WHERE account_id = ${accountId}) AS n`,
    );
    if (!account.email && BigInt(others?.n ?? 0n) === 0n) {
      throw new AppError('SVC-VAL-007', "Refused: this wallet is the account's last way to sign in");
    }
    await tx.execute(sql`DELETE FROM wallet_links WHERE wallet_address = ${address}`);
    // The account's original wallet column follows its link, so the wallet can be linked elsewhere later.
    if (account.wallet_address === address) {
      await tx.execute(sql`UPDATE accounts SET wallet_address = NULL WHERE id = ${accountId}`);
    }
  });
}
