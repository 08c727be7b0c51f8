// E-mail sign-in (docs/auth.md): a 6-digit code by e-mail, exchanged for a session token.
// Codes are stored only as an HMAC keyed with the session secret, live 10 minutes, allow 5 attempts, and a
// new code supersedes older ones. The answer to a login request never depends on whether an account exists.
import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { isUniqueViolation, one, toDate } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import {
  type AccountRef,
  findAccountByEmail,
  findOrCreateAccountByEmail,
  normalizeEmail,
} from './accounts.js';
import { type IssuedSession, issueSession } from './sessions.js';

export const LOGIN_CODE_TTL_MS = 10 * 60 * 1000;
export const LOGIN_CODE_MAX_ATTEMPTS = 5;
/**
 * At most this many codes per address per window. Beyond it the request is still answered 202 but no code
 * is issued (the live one stays valid): this bounds both mail-bombing an address and guessing
 * (5 codes x 5 attempts per 15 minutes against 1,000,000 possibilities).
 */
export const LOGIN_CODES_PER_WINDOW = 5;
export const LOGIN_CODE_WINDOW_MS = 15 * 60 * 1000;

function codeHash(deps: AppDeps, codeId: string, code: string): string {
  return createHmac('sha256', deps.secrets.sessionSecret)
    .update(`login-code:${codeId}:${code}`)
    .digest('hex');
}

/** Issues a code for the address and queues the e-mail that carries it, in one transaction. */
export async function requestLoginCode(deps: AppDeps, email: string): Promise<{ expires_at: string }> {
  const address = normalizeEmail(email);
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + LOGIN_CODE_TTL_MS);
  const windowStart = new Date(now.getTime() - LOGIN_CODE_WINDOW_MS).toISOString();
  const recent = await one<{ n: number }>(
    deps.db.orm,
    sql`SELECT count(*)::int AS n FROM auth_login_codes
        WHERE email = ${address} AND created_at > ${windowStart}::timestamptz`,
  );
  if ((recent?.n ?? 0) >= LOGIN_CODES_PER_WINDOW) return { expires_at: expiresAt.toISOString() };
  // Two concurrent requests for one address race on the "one live code" index; the loser retries.
  for (let attempt = 1; ; attempt++) {
    const codeId = randomUUID();
    try {
      await deps.db.orm.transaction(async (tx) => {
        await tx.execute(
          sql`UPDATE auth_login_codes SET superseded_at = ${now.toISOString()}::timestamptz
              WHERE email = ${address} AND consumed_at IS NULL AND superseded_at IS NULL`,
        );
        await tx.execute(
          sql`INSERT INTO auth_login_codes (id, email, code_hash, expires_at, created_at)
              VALUES (${codeId}, ${address}, ${codeHash(deps, codeId, code)},
                      ${expiresAt.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)`,
        );
        const account = await findAccountByEmail(tx, address);
        await deps.hooks.run('login-code.issued', tx, {
          email: address,
          code,
          codeId,
          ...(account ? { accountId: account.id } : {}),
          now,
        });
      });
      return { expires_at: expiresAt.toISOString() };
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 3) throw err;
    }
  }
}

interface LiveCode {
  id: string;
  code_hash: string;
  attempts: number;
  expires_at: string;
}

/**
 * Exchanges a code for a session token; the account is created on the first verify of an address.
 * Wrong, expired, superseded, used or exhausted codes: 401 SVC-AUTH-001 (a wrong guess still counts).
 * A suspended account: 403 SVC-AUTH-004.
 */
export async function verifyLoginCode(deps: AppDeps, email: string, code: string): Promise<IssuedSession> {
  const address = normalizeEmail(email);
  const now = deps.clock.now();
  const account = await deps.db.orm.transaction(async (tx): Promise<AccountRef | undefined> => {
    const live = await one<LiveCode>(
      tx,
      sql`SELECT id, code_hash, attempts, expires_at FROM auth_login_codes
          WHERE email = ${address} AND consumed_at IS NULL AND superseded_at IS NULL FOR UPDATE`,
    );
    if (!live || toDate(live.expires_at) <= now || live.attempts >= LOGIN_CODE_MAX_ATTEMPTS) return undefined;
    const presented = Buffer.from(codeHash(deps, live.id, code), 'hex');
    if (!timingSafeEqual(presented, Buffer.from(live.code_hash, 'hex'))) {
      await tx.execute(sql`UPDATE auth_login_codes SET attempts = attempts + 1 WHERE id = ${live.id}`);
      return undefined;
    }
    await tx.execute(
      sql`UPDATE auth_login_codes SET consumed_at = ${now.toISOString()}::timestamptz WHERE id = ${live.id}`,
    );
    return findOrCreateAccountByEmail(tx, address);
  });
  if (!account) throw new AppError('SVC-AUTH-001', 'Invalid or expired code');
  if (account.status !== 'active') throw new AppError('SVC-AUTH-004');
  return issueSession(deps, account.id, now);
}
