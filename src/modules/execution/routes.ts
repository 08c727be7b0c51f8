// POST /v1/execute/:providerId/:endpointSlug (docs/execution.md). The body is validated against the endpoint's
// own parameter schema inside the service (it differs per endpoint), not by a route schema.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors/catalogue.js';
import { ErrorShapeA, ErrorShapeB } from '../../http/envelope.js';
import { IdempotencyKeyHeader } from '../../http/idempotency.js';
import { PathId } from '../../http/path-ids.js';
import { accountOf, verifyDeferredCaller } from '../auth/index.js';
import { executeCall, MaxPriceHeader } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set once the debit statement has checked this request's key and account status (a request
     * property rather than a WeakSet entry per request: those cost every GC).
     */
    authCheckedInDebit: boolean;
  }
}

export const executionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = app.deps;
  app.decorateRequest('authCheckedInDebit', false);
  const errorHandler = app.errorHandler;

  app.post(
    '/v1/execute/:providerId/:endpointSlug',
    {
      schema: {
        tags: ['execution'],
        summary: 'Call a provider endpoint, paid from the balance',
        description:
          'Body: the endpoint parameters (JSON object). 200 `{svc, data}` on provider 2xx; a provider 4xx is ' +
          'charged and returned with its status; 5xx/connection failure → refund + 502 SVC-EXE-004; timeout → ' +
          'refund + 504 SVC-EXE-005. `Idempotency-Key` (≤ 255 chars) makes retries safe.',
        params: Type.Object({
          providerId: PathId(128),
          endpointSlug: PathId(128),
        }),
        headers: Type.Object({
          'idempotency-key': IdempotencyKeyHeader,
          'x-svc-max-price-usdc': MaxPriceHeader,
        }),
        security: [{ apiKey: [] }, { bearer: [] }],
        // The handler sends pre-serialised text, so these schemas document the answers without filtering them.
        response: {
          200: Type.Unsafe<unknown>(
            Type.Object(
              {
                svc: Type.Object({
                  call_id: Type.String(),
                  provider_id: Type.String(),
                  endpoint: Type.String(),
                  charged_usdc: Type.String(),
                  remaining_balance_usdc: Type.String(),
                  latency_ms: Type.Integer(),
                }),
                data: Type.Unknown({
                  description: "The provider's JSON answer (or {raw_body} for non-JSON)",
                }),
              },
              { description: 'Provider 2xx: charged' },
            ),
          ),
          400: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: "SVC-EXE-003 / SVC-VAL-001, or the provider's own 400 as {svc, data}",
          }),
          401: Type.Unsafe<unknown>(ErrorShapeA),
          402: Type.Unsafe<unknown>(
            Type.Union([ErrorShapeA, ErrorShapeB], {
              description:
                'SVC-PAY-001 insufficient balance (shape A) or SVC-CREDIT-002 spend limit (shape B)',
            }),
          ),
          403: Type.Unsafe<unknown>(ErrorShapeA),
          404: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: "SVC-EXE-001/002, or the provider's own 404 as {svc, data}",
          }),
          409: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description:
              'SVC-VAL-005: a request with this Idempotency-Key is in progress; SVC-EXE-006: the price is ' +
              'above X-Svc-Max-Price-Usdc (nothing charged, provider not called)',
          }),
          422: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-VAL-004: Idempotency-Key reused with another request',
          }),
          // Also the schema Fastify serialises every other 4xx with (429 from the rate limiter, 413, 415…),
          // so it must admit our error shape too, not only the provider's answer.
          '4xx': Type.Unsafe<unknown>(
            Type.Union(
              [
                Type.Object({ svc: Type.Record(Type.String(), Type.Unknown()), data: Type.Unknown() }),
                ErrorShapeA,
              ],
              {
                description:
                  "The provider's own 4xx answer, charged, with its status; or an error (429, 413, 415)",
              },
            ),
          ),
          502: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-EXE-004: provider 5xx or unreachable; refunded',
          }),
          504: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-EXE-005: provider timeout; refunded',
          }),
        },
      },
      // The caller may come from the cached key mapping (auth/caller.ts): the debit checks the key and
      // the account status itself.
      config: { authInDebit: true },
      // Any answer the debit did not decide (404, 400, 413, 429, ...) first runs the full key lookup, so
      // a revoked key or a suspended account gets 401/403 exactly as without the cache.
      errorHandler: async function (this: unknown, error, request, reply) {
        let err: Error = error;
        const deferred = request.caller.kind === 'account' && request.caller.authInDebit === true;
        if (deferred && !request.authCheckedInDebit) {
          try {
            const caller = await verifyDeferredCaller(app, request);
            if (caller.kind !== 'account') err = new AppError('SVC-AUTH-001');
            else if (caller.status !== 'active') err = new AppError('SVC-AUTH-004');
          } catch {
            // The lookup itself failed (database down): answer the original error.
          }
        }
        return errorHandler.call(app, err as typeof error, request, reply);
      },
    },
    async (request, reply) => {
      if (request.caller.kind === 'anonymous' || request.caller.kind === 'wallet') {
        // No credential: say where the same call can be paid per call with x402 (docs/execution.md).
        const { providerId, endpointSlug } = request.params;
        throw new AppError('SVC-AUTH-001', undefined, {
          x402_url: `${deps.config.publicUrl}/x402/${encodeURIComponent(providerId)}/${encodeURIComponent(endpointSlug)}`,
        });
      }
      const caller = accountOf(request);
      const result = await executeCall(app, {
        accountId: caller.accountId,
        apiKeyId: caller.keyId ?? null,
        providerId: request.params.providerId,
        endpointSlug: request.params.endpointSlug,
        body: request.body,
        idempotencyKey: request.headers['idempotency-key'],
        maxPriceUsdc: request.headers['x-svc-max-price-usdc'],
        elapsedMs: () => reply.elapsedTime,
        onAuthChecked: () => {
          request.authCheckedInDebit = true;
        },
      });
      if (result.replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.status(result.status).type('application/json; charset=utf-8').send(result.body);
    },
  );
};
