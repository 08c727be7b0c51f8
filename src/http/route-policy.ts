// Route policy, declared on the route and enforced by one onRequest hook (before the body is parsed or
// validated, so a request without the right credential learns 401/403 and nothing about its body):
//   config: { auth: 'admin' }    the admin token (Authorization: Bearer <SVC_ADMIN_TOKEN>)
//   config: { auth: 'account' }  an authenticated, active account (request.caller)
//   config: { rateLimit: 'exempt' }  not counted by the rate limiter (health, docs, webhooks, pages)
//   config: { keyPolicy: 'refuse' }  not through an API key with a spending policy (managing keys, limits
//                                    and alerts: an agent's key cannot lift its own leash) → 403 SVC-AUTH-005
// A route without `auth` is public. Admin routes with a valid token are not rate limited either.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/catalogue.js';
import { safeEqual } from '../lib/secrets.js';
import { accountOf } from './caller.js';

export type RouteAuth = 'admin' | 'account';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    rateLimit?: 'exempt';
    keyPolicy?: 'refuse';
  }
}

export function hasAdminToken(request: FastifyRequest, adminToken: string): boolean {
  const h = request.headers.authorization;
  const m = typeof h === 'string' ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1] !== undefined && safeEqual(m[1], adminToken);
}

export function checkAdminToken(request: FastifyRequest, adminToken: string): void {
  if (!hasAdminToken(request, adminToken))
    throw new AppError('SVC-AUTH-001', 'Missing or invalid admin token');
}

/** Registers the hook; call it after the hooks that resolve `request.caller` and count rate limits. */
export function registerRoutePolicy(app: FastifyInstance, adminToken: string): void {
  app.addHook('onRequest', async (request) => {
    const auth = request.routeOptions.config?.auth;
    if (auth === 'admin') checkAdminToken(request, adminToken);
    else if (auth === 'account') {
      const caller = accountOf(request);
      if (request.routeOptions.config?.keyPolicy === 'refuse' && caller.keyHasPolicy) {
        throw new AppError(
          'SVC-AUTH-005',
          "This API key's spending policy does not allow managing the account",
        );
      }
    }
  });
}
