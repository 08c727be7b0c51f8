// POST /x402/:providerId/:slug (pay per call, no account) and GET /discovery/resources (Bazaar-compatible
// listing), DESIGN.md section 12.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors/catalogue.js';
import { listResources } from './discovery.js';
import type { X402Runtime } from './runtime.js';
import { handleX402Call } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    x402: X402Runtime;
  }
}

export function x402Url(publicUrl: string, providerId: string, slug: string): string {
  return `${publicUrl}/x402/${encodeURIComponent(providerId)}/${encodeURIComponent(slug)}`;
}

export const x402Routes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = app.deps;
  const publicUrl = deps.config.publicUrl;

  app.post(
    '/x402/:providerId/:slug',
    {
      schema: {
        tags: ['x402'],
        summary: 'Call a provider endpoint, paid per call with x402 (USDC, EIP-3009)',
        description:
          'Body: the endpoint parameters (JSON object). Without a payment header: 402 with `PAYMENT-REQUIRED`. ' +
          'With `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1): 200 `{svc, data}` and `PAYMENT-RESPONSE` once ' +
          'settled; a provider 5xx/timeout settles nothing (502/504); a refused payment is 402 with `error`.',
        params: Type.Object({
          providerId: Type.String({ minLength: 1, maxLength: 128 }),
          slug: Type.String({ minLength: 1, maxLength: 128 }),
        }),
        headers: Type.Object({
          'payment-signature': Type.Optional(Type.String({ maxLength: 16384 })),
          'x-payment': Type.Optional(Type.String({ maxLength: 16384 })),
        }),
      },
    },
    async (request, reply) => {
      const { providerId, slug } = request.params;
      const answer = await handleX402Call(deps, app.x402, app.execution, {
        providerId,
        endpointSlug: slug,
        body: request.body,
        paymentHeader: request.headers['payment-signature'] ?? request.headers['x-payment'],
        resourceUrl: x402Url(publicUrl, providerId, slug),
        elapsedMs: () => reply.elapsedTime,
        checkWalletLimit: async (payer) => {
          const decision = await app.rateLimiter.check(
            { kind: 'wallet', ip: request.ip, wallet: payer },
            'POST /x402/:providerId/:slug',
          );
          if (decision.allowed) return;
          const retryAfter = Math.max(1, Math.ceil(decision.reported.msBeforeReset / 1000));
          throw new AppError(
            'SVC-RATE-001',
            `Rate limit of ${decision.reported.limit} paid calls exceeded for this wallet; retry in ${retryAfter} s`,
            { limit: decision.reported.limit, scope: 'wallet', retry_after_seconds: retryAfter },
            { 'Retry-After': String(retryAfter) },
          );
        },
      });
      for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
      reply.header('Access-Control-Expose-Headers', 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE');
      return reply.status(answer.status).type('application/json; charset=utf-8').send(answer.body);
    },
  );

  app.get(
    '/discovery/resources',
    {
      schema: {
        tags: ['x402'],
        summary: 'x402 resources (Bazaar-compatible listing) for clients that discover by crawling',
        querystring: Type.Object({
          type: Type.Optional(Type.Literal('http')),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          offset: Type.Integer({ minimum: 0, default: 0 }),
        }),
      },
    },
    async (request) => listResources(deps, app.x402, publicUrl, request.query.limit, request.query.offset),
  );
};
