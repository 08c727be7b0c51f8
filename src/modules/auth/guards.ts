// Route guards. Routes declare their policy in `config.auth` (src/http/route-policy.ts); these remain
// for code that reads the caller (accountOf) or cannot declare it.
import type { FastifyRequest } from 'fastify';
import { checkAdminToken } from '../../http/route-policy.js';

export { type AccountCaller, accountOf, requireAccount } from '../../http/caller.js';

/**
 * The admin check as a hook, for routes that cannot declare `config: { auth: 'admin' }` (prefer that: it
 * runs in onRequest, before the body is validated; src/http/route-policy.ts).
 */
export function makeRequireAdmin(adminToken: string) {
  return async function requireAdmin(request: FastifyRequest) {
    checkAdminToken(request, adminToken);
  };
}
