// The caller of a request, as every route sees it (`request.caller`). The identity module (auth) resolves
// it in an onRequest hook; routes and guards only read it, so they need not know how it was resolved.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/catalogue.js';

export type AccountStatus = 'active' | 'suspended' | 'closed';

export type CredentialKind = 'api_key' | 'session' | 'wallet_signature';

export type Caller =
  | { kind: 'anonymous'; ip: string }
  /** `X-Svc-Wallet` without a signature: identifies for rate limiting only, never grants account access. */
  | { kind: 'wallet'; ip: string; wallet: string }
  | {
      kind: 'account';
      ip: string;
      accountId: string;
      status: AccountStatus;
      credential: CredentialKind;
      /** The API key used, when credential = api_key. */
      keyId?: string;
      /** The API key used carries a spending policy (an agent key: docs/keys.md). */
      keyHasPolicy?: true;
      /** The signing wallet (wallet_signature), else the account's wallet if it has one. */
      wallet?: string;
      /**
       * Resolved from the cached key mapping without reading the database: `status` is provisional, and
       * the key's revocation and the account's status are still to be checked by the debit statement
       * (or by verifyDeferredCaller before any other answer).
       */
      authInDebit?: true;
    }
  /** Credentials were presented but are not valid; guarded routes answer 401 SVC-AUTH-001. */
  | { kind: 'invalid'; ip: string; wallet?: string; reason: string };

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

export type AccountCaller = Extract<Caller, { kind: 'account' }>;

/** Returns the authenticated caller or throws 401 SVC-AUTH-001 / 403 SVC-AUTH-004. */
export function accountOf(request: FastifyRequest): AccountCaller {
  const caller = request.caller;
  if (caller.kind !== 'account') throw new AppError('SVC-AUTH-001');
  if (caller.status !== 'active') throw new AppError('SVC-AUTH-004');
  return caller;
}
