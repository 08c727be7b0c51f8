// Session tokens (`Authorization: Bearer <jwt>`): the built-in ones issued by e-mail login (HS256 with the
// session secret), and, when configured, an external identity provider's (verified against its JWKS).
import { sql } from 'drizzle-orm';
import { decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { type Executor, one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { type AccountRef, findOrCreateAccountByEmail } from './accounts.js';
import type { AuthContext } from './runtime.js';

export const SESSION_TTL_SECONDS = 24 * 60 * 60;
/** `aud` of built-in session tokens; `iss` is the service's public URL. */
export const SESSION_AUDIENCE = 'svc-api';
/** Skew allowed on an external provider's `exp`/`nbf` (its clock is not ours). */
const EXTERNAL_CLOCK_TOLERANCE_SECONDS = 30;
/** Asymmetric algorithms only: an external token must never be checked with a shared secret. */
const EXTERNAL_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export const looksLikeJwt = (token: string) => JWT_SHAPE.test(token);

/** The HS256 key of built-in session tokens: the bytes of the session secret. */
const sessionKey = (deps: AppDeps) => new TextEncoder().encode(deps.secrets.sessionSecret);

export interface IssuedSession {
  session_token: string;
  expires_at: string;
  account_id: string;
}

/** Signs a built-in session token for the account, valid SESSION_TTL_SECONDS from `now`. */
export async function issueSession(
  deps: AppDeps,
  accountId: string,
  now: Date = deps.clock.now(),
): Promise<IssuedSession> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + SESSION_TTL_SECONDS;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(accountId)
    .setIssuer(deps.config.publicUrl)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(newId('ses'))
    .sign(sessionKey(deps));
  return { session_token: token, expires_at: new Date(exp * 1000).toISOString(), account_id: accountId };
}

const accountById = (ex: Executor, id: string) =>
  one<AccountRef>(ex, sql`SELECT id, status, wallet_address FROM accounts WHERE id = ${id}`);

/**
 * The account a session token stands for, or undefined when the token is not valid (bad signature,
 * expired, wrong issuer or audience, unknown account). One indexed query once the token is verified.
 */
export async function resolveSession(
  { deps, auth }: AuthContext,
  token: string,
): Promise<AccountRef | undefined> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return undefined;
  }
  const currentDate = deps.clock.now();
  if (alg === 'HS256') {
    const payload = await verified(() =>
      jwtVerify(token, sessionKey(deps), {
        algorithms: ['HS256'],
        issuer: deps.config.publicUrl,
        audience: SESSION_AUDIENCE,
        requiredClaims: ['sub', 'exp'],
        currentDate,
      }),
    );
    return payload?.sub ? accountById(deps.db.orm, payload.sub) : undefined;
  }
  const { jwks } = auth;
  const { issuer, audience } = deps.config.auth;
  if (!jwks || !issuer || !audience) return undefined;
  const payload = await verified(() =>
    jwtVerify(token, jwks, {
      algorithms: EXTERNAL_ALGORITHMS,
      issuer,
      audience,
      requiredClaims: ['sub', 'exp'],
      clockTolerance: EXTERNAL_CLOCK_TOLERANCE_SECONDS,
      currentDate,
    }),
  );
  if (!payload?.sub) return undefined;
  return accountForIdentity(deps, issuer, payload.sub, linkableEmail(payload));
}

async function verified(verify: () => Promise<{ payload: JWTPayload }>): Promise<JWTPayload | undefined> {
  try {
    return (await verify()).payload;
  } catch {
    // Any verification failure (signature, claims, unreachable JWKS) means "not a valid credential".
    return undefined;
  }
}

/** The token's e-mail, unless the provider says it is unverified (linking it would hand over an account). */
function linkableEmail(payload: JWTPayload): string | undefined {
  const email = payload.email;
  if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254) return undefined;
  return payload.email_verified === false ? undefined : email;
}

class LostIdentityRace extends Error {}

/**
 * The account of an identity-provider subject. First sight of a subject links it to the account of its
 * e-mail (created by the admin API or an e-mail login), or creates one. Afterwards one indexed query.
 */
async function accountForIdentity(
  deps: AppDeps,
  issuer: string,
  subject: string,
  email: string | undefined,
): Promise<AccountRef | undefined> {
  const find = () =>
    one<AccountRef>(
      deps.db.orm,
      sql`SELECT a.id, a.status, a.wallet_address FROM auth_identities i JOIN accounts a ON a.id = i.account_id
          WHERE i.issuer = ${issuer} AND i.subject = ${subject}`,
    );
  const known = await find();
  if (known) return known;
  try {
    return await deps.db.orm.transaction(async (tx) => {
      const account = email
        ? await findOrCreateAccountByEmail(tx, email)
        : ((await one<AccountRef>(
            tx,
            sql`INSERT INTO accounts (id) VALUES (${newId('acc')}) RETURNING id, status, wallet_address`,
          )) as AccountRef);
      const linked = await one(
        tx,
        sql`INSERT INTO auth_identities (issuer, subject, account_id, created_at)
            VALUES (${issuer}, ${subject}, ${account.id}, ${deps.clock.now().toISOString()}::timestamptz)
            ON CONFLICT (issuer, subject) DO NOTHING RETURNING account_id`,
      );
      // Another request linked this subject first: roll back (no orphan account) and use its link.
      if (!linked) throw new LostIdentityRace();
      return account;
    });
  } catch (err) {
    if (err instanceof LostIdentityRace) return find();
    throw err;
  }
}
