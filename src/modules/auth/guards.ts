// Route guards. `requireAccount` for every authenticated route; `requireAdmin` for /v1/admin/*.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { safeEqual } from '../../lib/secrets.js';

export { type AccountCaller, accountOf, requireAccount } from '../../http/caller.js';

export function makeRequireAdmin(adminToken: string) {
  return async function requireAdmin(request: FastifyRequest) {
    const h = request.headers.authorization;
    const m = typeof h === 'string' ? /^Bearer\s+(\S+)$/i.exec(h) : null;
    if (!m?.[1] || !safeEqual(m[1], adminToken)) {
      throw new AppError('SVC-AUTH-001', 'Missing or invalid admin token');
    }
  };
}
