// Provider earnings and settlements (docs/payouts.md): the owner's views under /v1/provider, the
// operator's run, list and fee report under /v1/admin/settlements.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { AppError } from '../../errors/catalogue.js';
import {
  CursorPagination,
  Envelope,
  ErrorShapeA,
  envelope,
  envelopeWithPagination,
  MetaSchema,
} from '../../http/envelope.js';
import { PathId } from '../../http/path-ids.js';
import { accountOf } from '../auth/index.js';
import { outcomesWritten } from '../execution/index.js';
import { lastMidnightUtc } from './schedule.js';
import { retrySettlement, runSettlement } from './service.js';
import { feeReport, listSettlements, providerEarnings, toSettlementView } from './views.js';

const Usdc = (description: string) => Type.String({ description });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('submitted'),
  Type.Literal('confirmed'),
  Type.Literal('failed'),
  Type.Literal('carried_over'),
]);

const Settlement = Type.Object({
  settlement_id: Type.String(),
  provider_id: Type.String(),
  account_id: Type.String({ description: "the provider's owner, who is paid" }),
  period_start: Type.String(),
  period_end: Type.String(),
  total_calls: Type.Integer(),
  gross_usdc: Usdc('sum of the prices of the calls this settlement includes'),
  fee_usdc: Usdc('platform fee on the gross, rounded down to a whole credit'),
  net_usdc: Usdc('gross - fee'),
  carried_in_usdc: Usdc('net of earlier carried-over settlements this payout includes'),
  amount_usdc: Usdc('transferred: net + carried in (0 for carried_over)'),
  status: Status,
  wallet_address: Nullable(Type.String()),
  tx_hash: Nullable(Type.String()),
  block_number: Type.Union([Type.Integer(), Type.Null()]),
  paid_by_settlement_id: Nullable(Type.String({ description: 'carried_over: the payout that included it' })),
  failure_reason: Nullable(Type.String()),
  created_at: Type.String(),
  confirmed_at: Nullable(Type.String()),
});

const Earnings = Type.Object({
  unsettled_calls: Type.Integer(),
  unsettled_gross_usdc: Type.String(),
  unsettled_fee_usdc: Type.String(),
  unsettled_net_usdc: Type.String(),
  carried_over_usdc: Type.String(),
  next_settlement_at: Type.String(),
});

const ListPage = Type.Object({
  data: Type.Array(Settlement),
  pagination: CursorPagination,
  meta: MetaSchema,
});

const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};

const AdminListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Status),
    provider_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);

const RunBody = Type.Object(
  {
    until: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'settle what was earned before this instant (default: the last 00:00 UTC)',
      }),
    ),
  },
  { additionalProperties: false },
);

const FeesQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time' })),
    to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

const FeeReport = Type.Object({
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  settlements: Type.Integer(),
  gross_usdc: Type.String(),
  fee_usdc: Usdc('fees of every settlement but failed ones'),
  collected_fee_usdc: Usdc('fees of settlements whose payout is confirmed on-chain'),
  paid_out_usdc: Type.String(),
  pending_usdc: Usdc('pending or submitted payouts'),
  failed_count: Type.Integer(),
  failed_usdc: Type.String(),
});

const badInput = (path: string, message: string) =>
  new AppError('SVC-VAL-001', 'Invalid request', { errors: [{ path, message }] });

export const payoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const security: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }];
  const fail = { 400: ErrorShapeA, 401: ErrorShapeA, 403: ErrorShapeA };

  app.get(
    '/v1/provider/earnings',
    {
      schema: {
        tags: ['provider'],
        summary: 'Earnings of your listings not yet settled, carried-over net and the next settlement time',
        security,
        response: { 200: Envelope(Earnings), 401: ErrorShapeA, 403: ErrorShapeA },
      },
      config: { auth: 'account' },
    },
    async (request) => {
      await outcomesWritten(app);
      return envelope(request, await providerEarnings(app.deps, accountOf(request).accountId));
    },
  );

  app.get(
    '/v1/provider/settlements',
    {
      schema: {
        tags: ['provider'],
        summary: 'Your settlements and payouts, newest first (cursor pagination)',
        security,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: ListPage, ...fail },
      },
      config: { auth: 'account' },
    },
    async (request) => {
      const page = await listSettlements(
        app.deps.db.orm,
        { accountId: accountOf(request).accountId },
        request.query,
      );
      return envelopeWithPagination(request, page.items, {
        has_more: page.hasMore,
        next_cursor: page.nextCursor,
      });
    },
  );

  app.post(
    '/v1/admin/settlements/run',
    {
      schema: {
        tags: ['admin'],
        summary: 'Run the settlement now for everything earned before `until`; returns the settlements made',
        security: [{ bearer: [] }],
        body: Type.Optional(RunBody),
        response: { 200: Envelope(Type.Array(Settlement)), 400: ErrorShapeA, 401: ErrorShapeA },
      },
      config: { auth: 'admin' },
    },
    async (request) => {
      const body: Static<typeof RunBody> = request.body ?? {};
      const now = app.deps.clock.now();
      const until = body.until ? new Date(body.until) : lastMidnightUtc(now);
      if (until > now) throw badInput('until', 'must not be in the future');
      await outcomesWritten(app);
      const made = await runSettlement(app.deps, until, request.log);
      return envelope(request, made.map(toSettlementView));
    },
  );

  app.post(
    '/v1/admin/settlements/:settlementId/retry',
    {
      schema: {
        tags: ['admin'],
        summary: 'Send a failed payout again as a new transfer (only failed ones: their transfer never paid)',
        security: [{ bearer: [] }],
        params: Type.Object({ settlementId: PathId(64) }),
        response: {
          200: Envelope(Settlement),
          400: ErrorShapeA,
          401: ErrorShapeA,
          404: ErrorShapeA,
          409: ErrorShapeA,
        },
      },
      config: { auth: 'admin' },
    },
    async (request) =>
      envelope(
        request,
        toSettlementView(await retrySettlement(app.deps, request.params.settlementId, request.log)),
      ),
  );

  app.get(
    '/v1/admin/settlements',
    {
      schema: {
        tags: ['admin'],
        summary: 'Every settlement, newest first; filter by status (e.g. failed) or provider',
        security: [{ bearer: [] }],
        querystring: AdminListQuery,
        response: { 200: ListPage, 400: ErrorShapeA, 401: ErrorShapeA },
      },
      config: { auth: 'admin' },
    },
    async (request) => {
      const { status, provider_id, ...page } = request.query;
      const found = await listSettlements(
        app.deps.db.orm,
        { ...(status ? { status } : {}), ...(provider_id ? { providerId: provider_id } : {}) },
        page,
      );
      return envelopeWithPagination(request, found.items, {
        has_more: found.hasMore,
        next_cursor: found.nextCursor,
      });
    },
  );

  app.get(
    '/v1/admin/settlements/fees',
    {
      schema: {
        tags: ['admin'],
        summary: "The platform's fee income over the settlements made in [from, to)",
        security: [{ bearer: [] }],
        querystring: FeesQuery,
        response: { 200: Envelope(FeeReport), 400: ErrorShapeA, 401: ErrorShapeA },
      },
      config: { auth: 'admin' },
    },
    async (request) => {
      const { from, to } = request.query;
      return envelope(
        request,
        await feeReport(app.deps.db.orm, {
          ...(from ? { from: new Date(from) } : {}),
          ...(to ? { to: new Date(to) } : {}),
        }),
      );
    },
  );
};
