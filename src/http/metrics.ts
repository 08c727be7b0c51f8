// Prometheus metrics at GET /metrics (docs/architecture.md), behind the admin token: process metrics plus
// a request-duration histogram labelled by route pattern (never the raw URL, which may carry ids).
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Returns the app's registry, so the wiring can add the business counters next to the histogram. */
export function registerMetrics(app: FastifyInstance): Registry {
  // One registry per app, so several apps in one process (tests) don't collide.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.get(
    '/metrics',
    { schema: { hide: true }, config: { auth: 'admin', rateLimit: 'exempt' } },
    async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    },
  );
  return registry;
}
