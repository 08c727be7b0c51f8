// Admin ledger route: POST /v1/admin/accounts/:accountId/credits (docs/billing.md).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, ErrorShapeA, envelope } from '../../http/envelope.js';
import { IdempotencyKeyHeader } from '../../http/idempotency.js';
import { PathId } from '../../http/path-ids.js';
import { creditAccountByAdmin } from './admin-credit.js';
import { toLedgerTransaction } from './format.js';

const CreditBody = Type.Object(
  {
    amount_usdc: Type.String({ minLength: 1, maxLength: 20, description: 'positive, at most 6 decimals' }),
    description: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

const CreditHeaders = Type.Object({ 'idempotency-key': IdempotencyKeyHeader });

export const ledgerAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/admin/accounts/:accountId/credits',
    {
      schema: {
        tags: ['admin'],
        summary: 'Credit an account (admin_credit ledger entry); unknown account → 404 SVC-AUTH-006',
        params: Type.Object({ accountId: PathId(64) }),
        headers: CreditHeaders,
        body: CreditBody,
        security: [{ bearer: [] }],
        response: {
          201: Envelope(
            Type.Object({
              id: Type.String(),
              type: Type.String(),
              amountCredits: Type.String(),
              amountUsdc: Type.String(),
              balanceAfter: Type.String(),
              description: Type.String(),
              referenceType: Type.Union([Type.String(), Type.Null()]),
              referenceId: Type.Union([Type.String(), Type.Null()]),
              providerId: Type.Union([Type.String(), Type.Null()]),
              capabilityId: Type.Union([Type.String(), Type.Null()]),
              createdAt: Type.String(),
            }),
          ),
          400: ErrorShapeA,
          401: ErrorShapeA,
          404: ErrorShapeA,
        },
      },
      config: { auth: 'admin' },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const { entry, replayed } = await creditAccountByAdmin(app.deps.db, {
        accountId: request.params.accountId,
        amountUsdc: request.body.amount_usdc,
        description: request.body.description,
        ...(key ? { idempotencyKey: key } : {}),
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.status(201).send(envelope(request, toLedgerTransaction(entry)));
    },
  );
};
