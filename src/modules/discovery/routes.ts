// POST /v1/discover (docs/discovery.md): free, no authentication, bare `{results, meta}` response.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { fieldErrors, firstFieldError, type SchemaIssue } from '../../errors/field-errors.js';
import { usdcNumberToCredits } from '../../lib/money.js';
import { HTTP_METHODS } from '../catalog/index.js';
import { keyPolicyFilter } from '../keys/index.js';
import type { DiscoveryFilters } from './ranking/filters.js';
import { matchQualityOf } from './ranking/match-quality.js';
import { DISCOVER_LIMIT_DEFAULT, type DiscoverBody, discoverRouteSchema } from './schemas.js';
import type { DiscoveryService } from './service.js';
import { discoveryItem } from './views.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Per-app discovery state (index, caches), made by `createDiscovery` in buildApp(). */
    discovery: DiscoveryService;
  }
}

/**
 * Schema errors inside `filters` are SVC-DSC-002 (the route's validationErrorCode, rendered by the
 * shared handler); anything else in the body (a bad limit, a non-string query, unknown fields) is
 * SVC-VAL-001.
 */
function rejectInvalidBody(request: FastifyRequest): void {
  const err = request.validationError as (Error & { validation?: SchemaIssue[] }) | undefined;
  if (!err) return;
  const errors = fieldErrors(err.validation);
  if (errors.some(({ path }) => path === 'filters' || path.startsWith('filters.'))) throw err;
  throw new AppError('SVC-VAL-001', firstFieldError(errors), { errors });
}

function toFilters(body: DiscoverBody): DiscoveryFilters {
  const f = body.filters ?? {};
  const filters: DiscoveryFilters = {};
  if (f.category !== undefined) filters.category = f.category;
  if (f.tags !== undefined && f.tags.length > 0) filters.tags = f.tags;
  if (f.max_price_per_call !== undefined) filters.maxPriceCredits = usdcNumberToCredits(f.max_price_per_call);
  if (f.min_uptime_pct !== undefined) filters.minUptimePct = f.min_uptime_pct;
  if (f.method !== undefined) {
    const method = f.method.toUpperCase();
    if (!(HTTP_METHODS as readonly string[]).includes(method)) {
      throw new AppError('SVC-DSC-002', `filters.method must be one of ${HTTP_METHODS.join(', ')}`, {
        errors: [{ path: 'filters.method', message: `must be one of ${HTTP_METHODS.join(', ')}` }],
      });
    }
    filters.method = method;
  }
  return filters;
}

const roundStrength = (s: number) => Math.round(Math.min(1, Math.max(0, s)) * 10_000) / 10_000;

/** `Cache-Control: no-cache` (or no-store) counts only from an authenticated caller. */
function wantsFresh(request: FastifyRequest): boolean {
  if (request.caller.kind !== 'account') return false;
  const cc = request.headers['cache-control'];
  return typeof cc === 'string' && /(^|[\s,])no-(cache|store)\b/i.test(cc);
}

export const discoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const service = app.discovery;

  app.post(
    '/v1/discover',
    { schema: discoverRouteSchema, attachValidation: true, config: { validationErrorCode: 'SVC-DSC-002' } },
    async (request) => {
      const started = performance.now();
      rejectInvalidBody(request);
      const body = request.body;
      const query = body.query?.trim() ? body.query.trim() : undefined;
      const filters = toFilters(body);
      if (query === undefined && Object.keys(filters).length === 0) throw new AppError('SVC-DSC-001');
      const caller = request.caller;
      if (body.allowed_only && caller.kind === 'account' && caller.keyId && caller.keyHasPolicy) {
        const allowed = await keyPolicyFilter(app.deps.db.orm, caller.keyId);
        if (allowed.providerIds) filters.providerIds = allowed.providerIds;
        if (allowed.categories) filters.categories = allowed.categories;
        const ceiling = allowed.perCallMaxCredits;
        if (
          ceiling !== null &&
          (filters.maxPriceCredits === undefined || ceiling < filters.maxPriceCredits)
        ) {
          filters.maxPriceCredits = ceiling;
        }
      }
      const { results, total, strength } = await service.discover({
        query,
        filters,
        limit: body.limit ?? DISCOVER_LIMIT_DEFAULT,
        fresh: wantsFresh(request),
      });
      return {
        results: results.map(discoveryItem),
        meta: {
          request_id: request.id,
          total_results: total,
          ...(strength === undefined
            ? {}
            : { match_quality: matchQualityOf(strength), match_strength: roundStrength(strength) }),
          query_time_ms: Math.round((performance.now() - started) * 100) / 100,
        },
      };
    },
  );
};
