// buildApp(deps): the whole HTTP service, with no I/O of its own beyond what deps provide.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance, type preHandlerAsyncHookHandler } from 'fastify';
import type { AppDeps } from './deps.js';
import { AppError } from './errors/catalogue.js';
import { registerErrorHandling } from './errors/handler.js';
import { registerInputGuards } from './http/input-guards.js';
import { logSerializers, REDACT_PATHS } from './http/logging.js';
import { registerMetrics } from './http/metrics.js';
import { registerRouteIndex } from './http/route-index.js';
import { validatorCompiler } from './http/validation.js';
import { newId } from './lib/ids.js';
import { authAdminRoutes } from './modules/auth/admin-routes.js';
import { cachedKeyCaller, resolveCaller } from './modules/auth/caller.js';
import { makeRequireAdmin } from './modules/auth/guards.js';
import { authRoutes } from './modules/auth/routes.js';
import { billingRoutes } from './modules/billing/routes.js';
import { catalogRoutes } from './modules/catalog/routes.js';
import { discoveryRoutes } from './modules/discovery/routes.js';
import { executionRoutes } from './modules/execution/routes.js';
import { keysRoutes } from './modules/keys/routes.js';
import { ledgerAdminRoutes } from './modules/ledger/routes.js';
import { registerRateLimiting } from './modules/ratelimit/plugin.js';
import { walletRoutes } from './modules/wallet/routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
    requireAdmin: preHandlerAsyncHookHandler;
  }
}

export interface BuildAppOptions {
  /** pino logger options; false silences logs (tests). */
  logger?: boolean | Record<string, unknown>;
}

export async function buildApp(deps: AppDeps, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const logger =
    opts.logger === false
      ? false
      : {
          level: config.logLevel,
          redact: REDACT_PATHS,
          serializers: logSerializers,
          ...(opts.logger === true ? {} : opts.logger),
        };
  const app = Fastify({
    logger,
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    trustProxy: config.trustProxy ? config.trustProxy.split(',').map((s) => s.trim()) : false,
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.decorate('deps', deps);
  app.decorate('requireAdmin', makeRequireAdmin(deps.secrets.adminToken));
  app.decorateRequest('caller', { getter: () => ({ kind: 'anonymous', ip: '' }) as never });
  registerErrorHandling(app);
  registerInputGuards(app);
  registerRouteIndex(app);
  // JSON only: without this Fastify would accept text/plain bodies as strings.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // Paid execute checks revocation and status in its debit statement: a cached key mapping will do.
    const caller =
      (request.routeOptions.config?.authInDebit ? await cachedKeyCaller(deps, request) : undefined) ??
      (await resolveCaller(deps, request));
    Object.defineProperty(request, 'caller', { value: caller, writable: true, configurable: true });
    // A suspended account is refused on every call it makes with its credentials (SPEC.md 3.1).
    if (caller.kind === 'account' && caller.status !== 'active') throw new AppError('SVC-AUTH-004');
  });

  await registerRateLimiting(app);

  if (config.env !== 'production') {
    await app.register(swagger, {
      openapi: {
        info: { title: 'Svc capability marketplace', version: '1.0.0' },
        servers: [{ url: config.publicUrl }],
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'x-svc-api-key' },
            bearer: { type: 'http', scheme: 'bearer' },
          },
        },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/docs-json', { schema: { hide: true } }, async () => app.swagger());
  }

  registerMetrics(app);
  app.get('/healthz', { schema: { tags: ['health'] } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { tags: ['health'] } }, async (_request, reply) => {
    try {
      await deps.db.orm.execute(sql`SELECT 1`);
      return { status: 'ready' };
    } catch {
      return reply.status(503).send({ status: 'unavailable' });
    }
  });

  await app.register(authAdminRoutes);
  await app.register(authRoutes);
  await app.register(keysRoutes);
  await app.register(catalogRoutes);
  await app.register(discoveryRoutes);
  await app.register(ledgerAdminRoutes);
  await app.register(executionRoutes);
  await app.register(walletRoutes);
  await app.register(billingRoutes);

  return app;
}
