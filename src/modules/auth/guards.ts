// Route guards. `requireAccount` for every authenticated route; `requireAdmin` for /v1/admin/*.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { safeEqual } from '../../lib/secrets.js';
import type { Caller } from './caller.js';

export type AccountCaller = Extract<Caller, { kind: 'account' }>;

/** Returns the authenticated caller or throws 401 SVC-AUTH-001 / 403 SVC-AUTH-004. */
export function accountOf(request: FastifyRequest): AccountCaller {
  const caller = request.caller;
  if (caller.kind !== 'account') throw new AppError('SVC-AUTH-001');
  if (caller.status !== 'active') throw new AppError('SVC-AUTH-004');
  return caller;
}

/** preHandler form of accountOf. */
export async function requireAccount(request: FastifyRequest) {
  accountOf(request);
}

export function makeRequireAdmin(adminToken: string) {
  return async function requireAdmin(request: FastifyRequest) {
    const h = request.headers.authorization;
    const m = typeof h === 'string' ? /^Bearer\s+(\S+)$/i.exec(h) : null;
    if (!m?.[1] || !safeEqual(m[1], adminToken)) {
      throw new AppError('SVC-AUTH-001', 'Missing or invalid admin token');
    }
  };
}
