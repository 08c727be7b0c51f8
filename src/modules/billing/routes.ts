// Routes of the billing module (docs/billing.md). Every /v1/billing/* route takes an API key
// or a session token of the account (docs/billing.md) and answers bare objects; the caller is checked in
// onRequest so a missing credential is a 401 before any validation.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/catalogue.js';
import { Envelope, ErrorShapeA, envelope } from '../../http/envelope.js';
import { utcDay } from '../../lib/clock.js';
import { accountOf } from '../auth/index.js';
import { outcomesWritten } from '../execution/index.js';
import { getBalance, listTransactions } from './account-views.js';
import { checkoutPageRoutes } from './checkout-routes.js';
import { getAlerts, getLimits, updateAlerts, updateLimits } from './controls.js';
import { createCoupon, redeemCoupon } from './coupons.js';
import { invalid } from './dates.js';
import { createCheckout, listPayments, MAX_CHECKOUT_CENTS, MIN_CHECKOUT_CENTS } from './payments.js';
import { createProcessor } from './processors.js';
import * as S from './schemas.js';
import { stripeWebhookRoutes } from './stripe-webhook.js';
import { usageByDay, usageByProvider, usageCsvStream, usageRange } from './usage.js';

const tags = ['billing'];
const security: { [label: string]: string[] }[] = [{ apiKey: [] }, { bearer: [] }];
const errors = { 400: ErrorShapeA, 401: ErrorShapeA, 403: ErrorShapeA };
/** Routes without a query or body cannot answer 400. */
const authErrors = { 401: ErrorShapeA, 403: ErrorShapeA };

function assertHttpUrl(value: string, path: string) {
  let ok = false;
  try {
    const u = new URL(value);
    ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    ok = false;
  }
  if (!ok) throw invalid(path, 'must be an http(s) URL');
}

export const billingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;
  // Chosen once at start: Stripe when keys are configured, the local checkout page otherwise.
  const processor = createProcessor(deps.config);

  await app.register(stripeWebhookRoutes(processor));
  await app.register(checkoutPageRoutes(processor.kind === 'local'));

  app.post(
    '/v1/billing/checkout',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        summary: 'Start a card checkout (Stripe, or the local checkout page)',
        security,
        body: S.CheckoutBody,
        response: { 200: S.CheckoutSession, ...errors },
      },
    },
    async (request) => {
      const { accountId } = accountOf(request);
      const { amountUsdCents, successUrl, cancelUrl } = request.body;
      assertHttpUrl(successUrl, 'successUrl');
      assertHttpUrl(cancelUrl, 'cancelUrl');
      if (amountUsdCents < MIN_CHECKOUT_CENTS) {
        throw new AppError('SVC-BILLING-001', undefined, { min_usd_cents: MIN_CHECKOUT_CENTS });
      }
      if (amountUsdCents > MAX_CHECKOUT_CENTS) {
        throw new AppError('SVC-BILLING-002', undefined, { max_usd_cents: MAX_CHECKOUT_CENTS });
      }
      return createCheckout(deps, processor, accountId, request.body);
    },
  );

  app.get(
    '/v1/billing/payments',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        summary: 'Card payments, newest first (page pagination)',
        security,
        querystring: S.PageQuery,
        response: { 200: S.PaymentList, ...errors },
      },
    },
    async (request) =>
      listPayments(deps, accountOf(request).accountId, request.query.page, request.query.limit),
  );

  app.get(
    '/v1/billing/balance',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        summary: 'Balance in credits and USDC',
        security,
        response: { 200: S.Balance, ...errors },
      },
    },
    async (request) => getBalance(deps, accountOf(request).accountId),
  );

  app.get(
    '/v1/billing/transactions',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        summary: 'Ledger transactions, newest first (page pagination, optional type filter)',
        security,
        querystring: S.TransactionsQuery,
        response: { 200: S.TransactionList, ...errors },
      },
    },
    async (request) => listTransactions(deps, accountOf(request).accountId, request.query),
  );

  app.get(
    '/v1/billing/usage',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        summary: 'Usage summary by day or by provider (net of refunds)',
        security,
        querystring: S.UsageQuery,
        response: { 200: S.UsageReport, ...errors },
      },
    },
    async (request) => {
      const { accountId } = accountOf(request);
      const range = usageRange(deps.clock.now(), request.query.from, request.query.to);
      return request.query.groupBy === 'provider'
        ? usageByProvider(deps, accountId, range)
        : usageByDay(deps, accountId, range);
    },
  );

  app.get(
    '/v1/billing/usage/export',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        summary: 'Usage export as CSV (RFC 4180, streamed; credits net of refunds)',
        security,
        querystring: S.ExportQuery,
        produces: ['text/csv'],
        response: { 200: { type: 'string', description: 'text/csv, RFC 4180' }, ...errors },
      },
    },
    async (request, reply) => {
      const { accountId } = accountOf(request);
      const range = usageRange(deps.clock.now(), request.query.from, request.query.to);
      const name = `usage-${utcDay(range.from)}-${utcDay(range.to)}.csv`;
      // Pending calls are left out of the export: first let this instance's answered calls be written.
      await outcomesWritten(app);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(usageCsvStream(deps, accountId, range));
    },
  );

  app.get(
    '/v1/billing/limits',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        security,
        summary: 'Current spending limits',
        response: { 200: S.Limits, ...authErrors },
      },
    },
    async (request) => getLimits(deps, accountOf(request).accountId),
  );

  app.put(
    '/v1/billing/limits',
    {
      config: { auth: 'account', keyPolicy: 'refuse' },
      schema: {
        tags,
        summary: 'Set the daily and per-call spending limits',
        security,
        body: S.LimitsBody,
        response: { 200: S.Limits, ...errors },
      },
    },
    async (request) => updateLimits(deps, accountOf(request).accountId, request.body),
  );

  app.get(
    '/v1/billing/alerts',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        security,
        summary: 'Current alert settings',
        response: { 200: S.Alerts, ...authErrors },
      },
    },
    async (request) => getAlerts(deps, accountOf(request).accountId),
  );

  app.put(
    '/v1/billing/alerts',
    {
      config: { auth: 'account', keyPolicy: 'refuse' },
      schema: {
        tags,
        summary: 'Set the low-balance alert threshold',
        security,
        body: S.AlertsBody,
        response: { 200: S.Alerts, ...errors },
      },
    },
    async (request) => updateAlerts(deps, accountOf(request).accountId, request.body),
  );

  app.post(
    '/v1/billing/coupons/redeem',
    {
      config: { auth: 'account' },
      schema: {
        tags,
        summary: 'Redeem a coupon code (credits the account once)',
        security,
        body: S.RedeemBody,
        response: { 200: S.Redemption, 404: ErrorShapeA, 409: ErrorShapeA, 410: ErrorShapeA, ...errors },
      },
    },
    async (request) => redeemCoupon(deps, accountOf(request).accountId, request.body.code),
  );

  app.post(
    '/v1/admin/coupons',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Create a coupon (codes are case-insensitive)',
        security: [{ bearer: [] }],
        body: S.CreateCouponBody,
        response: { 201: Envelope(S.Coupon), 400: ErrorShapeA, 401: ErrorShapeA, 409: ErrorShapeA },
      },
    },
    async (request, reply) =>
      reply.status(201).send(envelope(request, await createCoupon(deps, request.body))),
  );
};
