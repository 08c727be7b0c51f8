// Wallet sign-in (docs/auth.md): an EIP-4361 challenge bound to one wallet, then the signature of
// that exact message sent with each request (X-Svc-Wallet, X-Svc-Signature, X-Svc-Nonce) until it expires.
import { sql } from 'drizzle-orm';
import { getAddress, type Hex, verifyMessage } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { one, toDate } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import { type AccountRef, findOrCreateAccountByWallet } from './accounts.js';
import type { AuthContext } from './runtime.js';

export const NONCE_TTL_MS = 60 * 60 * 1000;
const SIGNATURE_PATTERN = /^0x[0-9a-fA-F]{130,4096}$/;
const NONCE_PATTERN = /^[0-9A-Za-z]{8,64}$/;

export interface Challenge {
  nonce: string;
  message: string;
  expires_at: string;
}

/** Issues a nonce bound to the wallet and the EIP-4361 message to sign with it (EIP-191 personal_sign). */
export async function createChallenge(deps: AppDeps, wallet: string): Promise<Challenge> {
  const { config } = deps;
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  const nonce = randomBase62(32);
  const message = createSiweMessage({
    address: getAddress(wallet),
    chainId: config.chain.chainId,
    domain: new URL(config.publicUrl).host,
    uri: config.publicUrl,
    version: '1',
    nonce,
    issuedAt: now,
    expirationTime: expiresAt,
    statement: 'Sign in to Svc with this wallet. The signature authenticates requests until it expires.',
  });
  const address = wallet.toLowerCase();
  await deps.db.orm.transaction(async (tx) => {
    // Housekeeping: this wallet's expired challenges are of no further use.
    await tx.execute(
      sql`DELETE FROM auth_wallet_nonces WHERE wallet_address = ${address}
          AND expires_at < ${now.toISOString()}::timestamptz`,
    );
    await tx.execute(
      sql`INSERT INTO auth_wallet_nonces (nonce, wallet_address, message, expires_at, created_at)
          VALUES (${nonce}, ${address}, ${message}, ${expiresAt.toISOString()}::timestamptz,
                  ${now.toISOString()}::timestamptz)`,
    );
  });
  return { nonce, message, expires_at: expiresAt.toISOString() };
}

interface NonceRow {
  wallet_address: string;
  message: string;
  expires_at: string;
  account_id: string | null;
  status: AccountRef['status'] | null;
  account_wallet: string | null;
}

/** True when `signature` is the wallet's signature of `message`: EOA, else EIP-1271 if a chain is set. */
async function signatureValid(deps: AppDeps, wallet: string, message: string, signature: Hex) {
  const address = getAddress(wallet);
  try {
    if (await verifyMessage({ address, message, signature })) return true;
  } catch {
    // Not a recoverable ECDSA signature: may still be a contract wallet's.
  }
  const chain = deps.chain.publicClient;
  if (!chain) return false;
  try {
    return await chain.verifyMessage({ address, message, signature });
  } catch {
    return false;
  }
}

/**
 * The account of a signed wallet request, or undefined when the signature, nonce or binding is not valid.
 * A nonce must exist, belong to this wallet and be unexpired, and the signature must be over its message.
 * Verified signatures are cached until their nonce expires, so later requests cost one indexed query
 * (the account's current status, which is never cached) instead of an ECDSA recovery.
 */
export async function resolveWalletSignature(
  { deps, auth }: AuthContext,
  wallet: string,
  signature: string,
  nonce: string,
): Promise<AccountRef | undefined> {
  if (!SIGNATURE_PATTERN.test(signature) || !NONCE_PATTERN.test(nonce)) return undefined;
  const address = wallet.toLowerCase();
  const nowMs = deps.clock.now().getTime();
  const { signatures } = auth;
  const cacheKey = sha256Hex(`${address}|${nonce}|${signature.toLowerCase()}`);
  if (signatures.has(cacheKey, nowMs)) {
    // A wallet signs in to the account it is linked to (docs/auth.md).
    const account = await one<AccountRef>(
      deps.db.orm,
      sql`SELECT a.id, a.status, a.wallet_address FROM wallet_links l JOIN accounts a ON a.id = l.account_id
          WHERE l.wallet_address = ${address}`,
    );
    if (account) return account;
  }
  const row = await one<NonceRow>(
    deps.db.orm,
    sql`SELECT n.wallet_address, n.message, n.expires_at, a.id AS account_id, a.status, a.wallet_address AS account_wallet
        FROM auth_wallet_nonces n LEFT JOIN wallet_links l ON l.wallet_address = n.wallet_address
        LEFT JOIN accounts a ON a.id = l.account_id
        WHERE n.nonce = ${nonce}`,
  );
  if (!row || row.wallet_address !== address) return undefined;
  const expiresAtMs = toDate(row.expires_at).getTime();
  if (expiresAtMs <= nowMs) return undefined;
  if (!(await signatureValid(deps, address, row.message, signature as Hex))) return undefined;
  signatures.add(cacheKey, expiresAtMs);
  if (row.account_id && row.status) {
    return { id: row.account_id, status: row.status, wallet_address: row.account_wallet };
  }
  return findOrCreateAccountByWallet(deps.db.orm, address);
}

/**
 * True when `signature` is the wallet's signature of an unexpired challenge issued to that wallet (the
 * proof of control that linking a wallet to an account needs; docs/auth.md).
 */
export async function verifyChallengeSignature(
  deps: AppDeps,
  wallet: string,
  nonce: string,
  signature: string,
): Promise<boolean> {
  if (!SIGNATURE_PATTERN.test(signature) || !NONCE_PATTERN.test(nonce)) return false;
  const address = wallet.toLowerCase();
  const row = await one<{ wallet_address: string; message: string; expires_at: string }>(
    deps.db.orm,
    sql`SELECT wallet_address, message, expires_at FROM auth_wallet_nonces WHERE nonce = ${nonce}`,
  );
  if (!row || row.wallet_address !== address) return false;
  if (toDate(row.expires_at).getTime() <= deps.clock.now().getTime()) return false;
  return signatureValid(deps, address, row.message, signature as Hex);
}
