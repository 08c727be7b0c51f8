// Admin ledger route: POST /v1/admin/accounts/:accountId/credits (DESIGN.md section 8).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { envelope } from '../../http/envelope.js';
import { creditAccountByAdmin } from './admin-credit.js';
import { toLedgerTransaction } from './format.js';

const CreditBody = Type.Object(
  {
    amount_usdc: Type.String({ minLength: 1, maxLength: 20, description: 'positive, at most 6 decimals' }),
    description: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

const CreditHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

export const ledgerAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/admin/accounts/:accountId/credits',
    {
      schema: {
        tags: ['admin'],
        summary: 'Credit an account (admin_credit ledger entry); unknown account → 404 SVC-AUTH-006',
        params: Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64 }) }),
        headers: CreditHeaders,
        body: CreditBody,
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
