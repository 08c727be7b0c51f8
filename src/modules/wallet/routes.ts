// Wallet API (docs/billing.md): balance and history. Deposits (POST /v1/wallet/deposit) come with their issue.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  CursorPagination,
  Envelope,
  ErrorShapeA,
  envelope,
  envelopeWithPagination,
  MetaSchema,
} from '../../http/envelope.js';
import { accountOf } from '../auth/index.js';
import { outcomesWritten } from '../execution/index.js';
import { walletBalance, walletHistory } from './service.js';

const Balance = Type.Object({
  balance_usdc: Type.String(),
  pending_settlements_usdc: Type.String(),
  total_deposited_usdc: Type.String(),
  total_spent_usdc: Type.String(),
});

const HistoryEntry = Type.Object({
  id: Type.String(),
  type: Type.Union([
    Type.Literal('call'),
    Type.Literal('deposit'),
    Type.Literal('refund'),
    Type.Literal('settlement'),
  ]),
  amount_usdc: Type.String({ description: 'signed: "-" spend, "+" credit' }),
  description: Type.String(),
  call_id: Type.Optional(Type.String()),
  provider_id: Type.Optional(Type.String()),
  endpoint: Type.Optional(Type.String()),
  tx_hash: Type.Optional(Type.String()),
  timestamp: Type.String(),
});

const HistoryQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    type: Type.Optional(
      Type.Union([
        Type.Literal('call'),
        Type.Literal('deposit'),
        Type.Literal('refund'),
        Type.Literal('settlement'),
      ]),
    ),
  },
  { additionalProperties: false },
);

export const walletRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const security: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }];
  app.get(
    '/v1/wallet/balance',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Balance, pending settlements and lifetime totals (USDC strings)',
        security,
        response: { 200: Envelope(Balance), 401: ErrorShapeA, 403: ErrorShapeA },
      },
      config: { auth: 'account' },
    },
    async (request) => {
      // pending_settlements_usdc: calls this instance has answered are written first (read your own calls).
      await outcomesWritten(app);
      return envelope(request, await walletBalance(app.deps.db.orm, accountOf(request).accountId));
    },
  );

  app.get(
    '/v1/wallet/history',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Ledger history, newest first (cursor pagination, optional type filter)',
        security,
        querystring: HistoryQuery,
        response: {
          200: Type.Object({
            data: Type.Array(HistoryEntry),
            pagination: CursorPagination,
            meta: MetaSchema,
          }),
          400: ErrorShapeA,
          401: ErrorShapeA,
          403: ErrorShapeA,
        },
      },
      config: { auth: 'account' },
    },
    async (request) => {
      const page = await walletHistory(app.deps.db.orm, accountOf(request).accountId, {
        limit: request.query.limit,
        cursor: request.query.cursor,
        type: request.query.type,
      });
      return envelopeWithPagination(request, page.entries, {
        has_more: page.hasMore,
        next_cursor: page.nextCursor,
      });
    },
  );
};
