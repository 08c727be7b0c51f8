// POST /x402/:providerId/:slug (pay per call, no account) and GET /discovery/resources (Bazaar-compatible
// listing), docs/x402.md.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors/catalogue.js';
import { ErrorShapeA } from '../../http/envelope.js';
import { MaxPriceHeader } from '../execution/index.js';
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

/** The 402 body (x402 v2 PaymentRequired); the same, base64, in the `PAYMENT-REQUIRED` header. */
const PaymentRequiredBody = Type.Object(
  {
    x402Version: Type.Integer(),
    error: Type.Optional(
      Type.String({ description: 'why the payment was refused; absent when none was sent' }),
    ),
    message: Type.Optional(Type.String()),
    resource: Type.Object({ url: Type.String(), description: Type.String(), mimeType: Type.String() }),
    accepts: Type.Array(Type.Unknown({ description: 'x402 PaymentRequirements (scheme exact)' })),
  },
  { description: 'Payment required, or the payment was refused (nothing was charged)' },
);

const PaidAnswer = Type.Object(
  {
    svc: Type.Object({
      call_id: Type.String(),
      provider_id: Type.String(),
      endpoint: Type.String(),
      charged_usdc: Type.String(),
      latency_ms: Type.Integer(),
      payment: Type.Object({ network: Type.String(), transaction: Type.String(), payer: Type.String() }),
    }),
    data: Type.Unknown({ description: "The provider's JSON answer (or {raw_body} for non-JSON)" }),
  },
  { description: 'Provider 2xx: settled' },
);

const ResourceList = Type.Object({
  x402Version: Type.Integer(),
  items: Type.Array(
    Type.Object(
      {
        resource: Type.String(),
        type: Type.String({ description: 'always "http"' }),
        x402Version: Type.Integer(),
        accepts: Type.Array(Type.Unknown({ description: 'x402 PaymentRequirements' })),
        lastUpdated: Type.String(),
        metadata: Type.Unknown({ description: 'description, input (body fields) and output schema' }),
      },
      { additionalProperties: true },
    ),
  ),
  pagination: Type.Object({ limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() }),
});

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
          'x-svc-max-price-usdc': MaxPriceHeader,
        }),
        // The handler sends pre-serialised text, so these schemas document the answers without filtering them.
        response: {
          200: Type.Unsafe<unknown>(PaidAnswer),
          400: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description:
              "SVC-EXE-003 / SVC-VAL-001 (nothing reserved), or the provider's own 400 as {svc, data}",
          }),
          402: Type.Unsafe<unknown>(PaymentRequiredBody),
          404: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: "SVC-EXE-001/002, or the provider's own 404 as {svc, data}",
          }),
          409: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-EXE-006: the price is above X-Svc-Max-Price-Usdc (no payment taken)',
          }),
          502: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-EXE-004: provider failed, not settled',
          }),
          504: Type.Unsafe<unknown>({
            ...ErrorShapeA,
            description: 'SVC-EXE-005: provider timed out, not settled',
          }),
          // Also the schema Fastify serialises every other 4xx with (429, 413, 415…), so it must admit our
          // error shape too, not only the provider's answer.
          '4xx': Type.Unsafe<unknown>(
            Type.Union([PaidAnswer, ErrorShapeA], {
              description: "The provider's other 4xx: settled; or an error of ours (413, 415, 429…)",
            }),
          ),
        },
      },
    },
    async (request, reply) => {
      const { providerId, slug } = request.params;
      const answer = await handleX402Call(deps, app.x402, app.execution, {
        providerId,
        endpointSlug: slug,
        body: request.body,
        paymentHeader: request.headers['payment-signature'] ?? request.headers['x-payment'],
        maxPriceUsdc: request.headers['x-svc-max-price-usdc'],
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
        response: { 200: ResourceList, 400: ErrorShapeA },
      },
    },
    async (request) => listResources(deps, app.x402, publicUrl, request.query.limit, request.query.offset),
  );
};
