// buildApp(deps): the whole HTTP service, with no I/O of its own beyond what deps provide.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { AppDeps } from './deps.js';
import { AppError } from './errors/catalogue.js';
import { registerErrorHandling } from './errors/handler.js';
import { registerInputGuards } from './http/input-guards.js';
import { AccessLogController, bufferedStdout, logSerializers, REDACT_PATHS } from './http/logging.js';
import { registerMetrics } from './http/metrics.js';
import { registerRouteIndex } from './http/route-index.js';
import { registerRoutePolicy } from './http/route-policy.js';
import { validatorCompiler } from './http/validation.js';
import { relayEvents } from './lib/event-relay.js';
import { newId } from './lib/ids.js';
import {
  authAdminRoutes,
  authRoutes,
  cachedKeyCaller,
  createAuthRuntime,
  resolveCaller,
} from './modules/auth/index.js';
import { billingRoutes } from './modules/billing/index.js';
import { catalogRoutes } from './modules/catalog/index.js';
import { chainRoutes } from './modules/chain/index.js';
import { dashboardRoutes } from './modules/dashboard/index.js';
import { depositRoutes } from './modules/deposits/index.js';
import { createDiscovery, discoveryRoutes } from './modules/discovery/index.js';
import { createExecutionRuntime, executionRoutes } from './modules/execution/index.js';
import { keysRoutes } from './modules/keys/index.js';
import { ledgerAdminRoutes } from './modules/ledger/index.js';
import { collectRouteSchemas, mcpRoutes } from './modules/mcp/index.js';
import { subscribeDepositMails } from './modules/notifications/index.js';
import { payoutRoutes } from './modules/payouts/index.js';
import { providerRoutes } from './modules/providers/index.js';
import { rateLimitStatus, registerRateLimiting } from './modules/ratelimit/index.js';
import { walletRoutes } from './modules/wallet/index.js';
import { createX402Runtime, x402Routes } from './modules/x402/index.js';
import { registerBusinessMetrics, subscribeModules } from './wiring.js';

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
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
          // Standard output in blocks rather than a write per line, unless the caller brings its own stream.
          stream:
            (opts.logger === true ? undefined : (opts.logger?.stream as DestinationStream | undefined)) ??
            bufferedStdout(),
        };
  const app = Fastify({
    logger,
    // One access-log line per request instead of Fastify's two.
    logController: new AccessLogController(),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    trustProxy: config.trustProxy ? config.trustProxy.split(',').map((s) => s.trim()) : false,
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  subscribeModules(deps);
  app.decorate('deps', deps);
  // Catalogue changes reach the caches of every other instance at once (not only after their TTL).
  if (deps.redis) {
    const relay = relayEvents(deps.redis, deps.redisPrefix, deps.events, ['catalog.changed'], (err) =>
      app.log.warn({ err }, 'could not relay an event to the other instances'),
    );
    app.addHook('onClose', () => relay.close());
  }
  // Per-app state, built once here and closed with the app (docs/architecture.md).
  app.decorate('auth', createAuthRuntime(deps));
  const execution = createExecutionRuntime(deps, app.log);
  app.decorate('execution', execution);
  app.addHook('onClose', () => execution.close());
  // Discovery's index, caches and word vectors: built on its first request, dropped with the app.
  const discovery = createDiscovery(deps, app.log);
  app.decorate('discovery', discovery);
  app.addHook('onClose', async () => discovery.close());
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
      (request.routeOptions.config?.authInDebit ? await cachedKeyCaller(app, request) : undefined) ??
      (await resolveCaller(app, request));
    Object.defineProperty(request, 'caller', { value: caller, writable: true, configurable: true });
    // A suspended account is refused on every call it makes with its credentials (docs/architecture.md).
    // (/mcp refuses it per tool call instead, as a tool result: src/modules/mcp/routes.ts.)
    if (caller.kind === 'account' && caller.status !== 'active' && !request.routeOptions.config?.mcpTransport)
      throw new AppError('SVC-AUTH-004');
  });

  await registerRateLimiting(app);
  registerRoutePolicy(app, deps.secrets.adminToken);

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
    // The API reference is not rate limited: the UI plugin's routes are declared exempt as they are
    // added (an onRoute hook inside this wrapper sees only the routes registered in it).
    await app.register(async (docs) => {
      docs.addHook('onRoute', (route) => {
        route.config = { ...route.config, rateLimit: 'exempt' };
      });
      await docs.register(swaggerUi, { routePrefix: '/docs' });
    });
    app.get('/docs-json', { schema: { hide: true }, config: { rateLimit: 'exempt' } }, async () =>
      app.swagger(),
    );
  }

  const businessMetrics = registerBusinessMetrics(deps, registerMetrics(app));
  app.addHook('onClose', async () => businessMetrics.close());
  app.get(
    '/healthz',
    {
      config: { rateLimit: 'exempt' },
      schema: {
        tags: ['health'],
        summary: 'Liveness: the process answers',
        response: { 200: Type.Object({ status: Type.String() }) },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      config: { rateLimit: 'exempt' },
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers (503 otherwise)',
        response: {
          200: Type.Object({ status: Type.String() }),
          503: Type.Object({ status: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      try {
        await deps.db.orm.execute(sql`SELECT 1`);
        return { status: 'ready' };
      } catch {
        return reply.status(503).send({ status: 'unavailable' });
      }
    },
  );

  // Before the routes: MCP tools reuse their response schemas as output schemas.
  const routeSchemas = collectRouteSchemas(app);
  await app.register(authAdminRoutes);
  await app.register(authRoutes, { rateLimitStatus });
  await app.register(keysRoutes);
  await app.register(catalogRoutes);
  await app.register(providerRoutes);
  await app.register(discoveryRoutes);
  await app.register(ledgerAdminRoutes);
  await app.register(executionRoutes);
  await app.register(walletRoutes);
  await app.register(chainRoutes);
  await app.register(depositRoutes);
  await app.register(payoutRoutes);
  // Reactions: a confirmed deposit is mailed (payment confirmed) by the notifications module.
  const unsubscribeDepositMails = subscribeDepositMails(deps, (err) =>
    app.log.error({ err }, 'deposit mail'),
  );
  app.addHook('onClose', async () => unsubscribeDepositMails());
  await app.register(billingRoutes);
  app.decorate('x402', createX402Runtime(deps));
  await app.register(x402Routes);
  await app.register(dashboardRoutes);
  await app.register(mcpRoutes, { routeSchemas });

  return app;
}
