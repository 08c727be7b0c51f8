// POST /v1/execute/:providerId/:endpointSlug (SPEC.md 4.2). The body is validated against the endpoint's
// own parameter schema inside the service (it differs per endpoint), not by a route schema.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { IdempotencyKeyHeader } from '../../http/idempotency.js';
import { PathId } from '../../http/path-ids.js';
import { verifyDeferredCaller } from '../auth/caller.js';
import { accountOf } from '../auth/guards.js';
import { executionRuntime } from './runtime.js';
import { executeCall } from './service.js';

/** Requests whose key and account status the debit statement has already checked. */
const authChecked = new WeakSet<FastifyRequest>();

export const executionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = app.deps;
  const errorHandler = app.errorHandler;
  const runtime = executionRuntime(deps, app.log);
  app.addHook('onClose', async () => {
    await runtime.close();
  });

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
        }),
        security: [{ apiKey: [] }, { bearer: [] }],
      },
      // The caller may come from the cached key mapping (auth/caller.ts): the debit checks the key and
      // the account status itself.
      config: { authInDebit: true },
      // Any answer the debit did not decide (404, 400, 413, 429, ...) first runs the full key lookup, so
      // a revoked key or a suspended account gets 401/403 exactly as without the cache.
      errorHandler: async function (this: unknown, error, request, reply) {
        let err: Error = error;
        const deferred = request.caller.kind === 'account' && request.caller.authInDebit === true;
        if (deferred && !authChecked.has(request)) {
          try {
            const caller = await verifyDeferredCaller(deps, request);
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
      const caller = accountOf(request);
      const result = await executeCall(deps, {
        accountId: caller.accountId,
        apiKeyId: caller.keyId ?? null,
        providerId: request.params.providerId,
        endpointSlug: request.params.endpointSlug,
        body: request.body,
        idempotencyKey: request.headers['idempotency-key'],
        elapsedMs: () => reply.elapsedTime,
        onAuthChecked: () => authChecked.add(request),
      });
      if (result.replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.status(result.status).type('application/json; charset=utf-8').send(result.body);
    },
  );
};
