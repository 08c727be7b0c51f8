// Catalogue routes: the admin API (docs/catalog.md) and the public read API. Never exposes base_url
// or secrets publicly (the response schemas drop anything not declared).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/catalogue.js';
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import { ErrorShapeA, envelope, envelopeWithPagination } from '../../http/envelope.js';
import { findLiveProvider, listProviderPage, loadEndpointQuality } from './repo.js';
import {
  AdminProviderInputSchema,
  AdminProviderResponse,
  CreatedProviderResponse,
  DeletedProviderResponse,
  EndpointParams,
  EndpointResponse,
  ListProvidersQuery,
  ProviderListResponse,
  ProviderParams,
  ProviderResponse,
} from './schemas.js';
import { createProvider, deleteProvider, replaceProvider } from './service.js';
import {
  endpointDetailView,
  loadAdminProviderView,
  loadCreatedProviderView,
  providerSummaryView,
  providerView,
} from './views.js';

const errors = { 400: ErrorShapeA, 401: ErrorShapeA, 404: ErrorShapeA, 409: ErrorShapeA };

export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;
  const adminSecurity = [{ bearer: [] }];

  app.post(
    '/v1/admin/providers',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create a provider; the answer carries provider_secret, shown only here',
        security: adminSecurity,
        body: AdminProviderInputSchema,
        response: { 201: CreatedProviderResponse, ...errors },
      },
      config: { auth: 'admin' },
    },
    async (request, reply) => {
      const data = await loadCreatedProviderView(deps.db.orm, await createProvider(deps, request.body));
      return reply.status(201).send(envelope(request, data));
    },
  );

  app.put(
    '/v1/admin/providers/:providerId',
    {
      schema: {
        tags: ['admin'],
        summary: 'Replace a provider and its endpoints (the secret is kept)',
        security: adminSecurity,
        params: ProviderParams,
        body: AdminProviderInputSchema,
        response: { 200: AdminProviderResponse, ...errors },
      },
      config: { auth: 'admin' },
    },
    async (request) => {
      const provider = await replaceProvider(deps, request.params.providerId, request.body);
      return envelope(request, await loadAdminProviderView(deps.db.orm, provider));
    },
  );

  app.delete(
    '/v1/admin/providers/:providerId',
    {
      schema: {
        tags: ['admin'],
        summary: 'Delete a provider and its endpoints',
        security: adminSecurity,
        params: ProviderParams,
        response: { 200: DeletedProviderResponse, 400: ErrorShapeA, 401: ErrorShapeA, 404: ErrorShapeA },
      },
      config: { auth: 'admin' },
    },
    async (request) => {
      await deleteProvider(deps, request.params.providerId);
      return envelope(request, { provider_id: request.params.providerId, deleted: true as const });
    },
  );

  app.get(
    '/v1/providers',
    {
      schema: {
        tags: ['catalogue'],
        summary: 'List providers in id order (cursor pagination, optional category filter)',
        querystring: ListProvidersQuery,
        response: { 200: ProviderListResponse, 400: ErrorShapeA },
      },
    },
    async (request) => {
      const { cursor, category } = request.query;
      const limit = request.query.limit ?? 20;
      const afterId = cursor === undefined ? undefined : decodeCursor(cursor, 1)[0];
      if (afterId !== undefined && typeof afterId !== 'string') {
        throw new AppError('SVC-VAL-001', 'Invalid cursor', {
          errors: [{ path: 'cursor', message: 'is not a valid cursor' }],
        });
      }
      const found = await listProviderPage(deps.db.orm, { afterId, category, limit });
      const page = found.slice(0, limit);
      const hasMore = found.length > limit;
      const last = page[page.length - 1];
      return envelopeWithPagination(request, page.map(providerSummaryView), {
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor([last.id]) : null,
      });
    },
  );

  app.get(
    '/v1/providers/:providerId',
    {
      schema: {
        tags: ['catalogue'],
        summary: 'A provider with its endpoints, parameter schemas, pricing and quality',
        params: ProviderParams,
        response: { 200: ProviderResponse, 400: ErrorShapeA, 404: ErrorShapeA },
      },
    },
    async (request) => {
      const { providerId } = request.params;
      const provider = await findLiveProvider(deps.db.orm, providerId);
      if (!provider) throw new AppError('SVC-EXE-001', `Provider ${providerId} not found`);
      const quality = await loadEndpointQuality(deps.db.orm, providerId);
      return envelope(request, providerView(provider, quality));
    },
  );

  app.get(
    '/v1/providers/:providerId/endpoints/:slug',
    {
      schema: {
        tags: ['catalogue'],
        summary: 'One endpoint: method, parameters, request/response schema, pricing and quality',
        params: EndpointParams,
        response: { 200: EndpointResponse, 400: ErrorShapeA, 404: ErrorShapeA },
      },
    },
    async (request) => {
      const { providerId, slug } = request.params;
      const provider = await findLiveProvider(deps.db.orm, providerId);
      if (!provider) throw new AppError('SVC-EXE-001', `Provider ${providerId} not found`);
      const endpoint = provider.endpoints.find((e) => e.slug === slug);
      if (!endpoint)
        throw new AppError('SVC-EXE-002', `Endpoint ${slug} not found on provider ${providerId}`);
      const quality = await loadEndpointQuality(deps.db.orm, providerId);
      return envelope(request, endpointDetailView(provider, endpoint, quality));
    },
  );
};
