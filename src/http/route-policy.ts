// Route policy, declared on the route and enforced by one onRequest hook (before the body is parsed or
// validated, so a request without the right credential learns 401/403 and nothing about its body):
//   config: { auth: 'admin' }    the admin token (Authorization: Bearer <SVC_ADMIN_TOKEN>)
//   config: { auth: 'account' }  an authenticated, active account (request.caller)
//   config: { rateLimit: 'exempt' }  not counted by the rate limiter (health, docs, webhooks, pages)
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
    else if (auth === 'account') accountOf(request);
  });
}
