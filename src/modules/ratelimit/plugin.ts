// Rate limiting hooks (issue 6). Registered on the root instance right after the hook that resolves
// `request.caller`, so it sees every request and refuses before any body parsing or handler runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { hasAdminToken } from '../../http/route-policy.js';
import { type LimitState, RateLimiter, rememberDecision } from './limiter.js';

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter;
  }
}

/**
 * Routes that are not counted (docs/ratelimit.md says why): those declaring `config.rateLimit: 'exempt'`
 * (src/http/route-policy.ts; the API docs' routes are declared so in src/app.ts), and operator traffic
 * on `auth: 'admin'` routes with the valid admin token (a wrong token is counted per IP like anyone else).
 */
function isExempt(request: FastifyRequest, adminToken: string): boolean {
  const pattern = request.routeOptions.url;
  // No matching route (404): counted like any other request.
  if (pattern === undefined) return false;
  const config = request.routeOptions.config;
  if (config?.rateLimit === 'exempt') return true;
  return config?.auth === 'admin' && hasAdminToken(request, adminToken);
}

/** "METHOD /route/pattern" as the endpoint-specific limits are keyed (HEAD counts as the GET it mirrors). */
function routeKey(request: FastifyRequest): string | undefined {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return undefined;
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return `${method} ${pattern}`;
}

function setHeaders(reply: FastifyReply, state: LimitState) {
  reply.header('X-RateLimit-Limit', String(state.limit));
  reply.header('X-RateLimit-Remaining', String(state.remaining));
  reply.header('X-RateLimit-Reset', String(state.reset));
}

const SCOPE_WORDS: Record<LimitState['scope'], string> = {
  ip: 'for this IP address',
  wallet: 'for this wallet from this IP address',
  wallet_ip: 'for unsigned wallet claims from this IP address',
  account: 'for this account',
  endpoint: 'for this endpoint',
};

export async function registerRateLimiting(app: FastifyInstance): Promise<void> {
  const { deps } = app;
  const limiter = new RateLimiter(deps, app.log);
  app.decorate('rateLimiter', limiter);
  app.decorateRequest('rateLimitDecision', null);
  app.addHook('onReady', async () => limiter.start());
  app.addHook('onClose', async () => limiter.stop());

  app.addHook('onRequest', async (request, reply) => {
    if (isExempt(request, deps.secrets.adminToken)) return;
    const decision = await limiter.check(request.caller, routeKey(request));
    rememberDecision(request, decision);
    // Set here so every response carries them, errors included.
    setHeaders(reply, decision.reported);
    if (decision.allowed) return;
    const { limit, msBeforeReset, scope } = decision.reported;
    const retryAfter = Math.max(1, Math.ceil(msBeforeReset / 1000));
    const window = limiter.limits.windowSeconds;
    throw new AppError(
      'SVC-RATE-001',
      `Rate limit of ${limit} requests per ${window} s exceeded ${SCOPE_WORDS[scope]}; retry in ${retryAfter} s`,
      { limit, window_seconds: window, scope, retry_after_seconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  });
}
