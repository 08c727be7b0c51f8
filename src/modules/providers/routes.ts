// Self-service provider routes: /v1/provider/listings*, /v1/provider/payout-wallet for the owning
// account, and the operator's review: GET /v1/admin/listings, POST /v1/admin/providers/:providerId/approve.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { accountOf } from '../../http/caller.js';
import { ErrorShapeA, envelope } from '../../http/envelope.js';
import {
  loadAdminProviderView,
  loadCreatedProviderView,
  ProviderInputSchema,
  ProviderParams,
} from '../catalog/index.js';
import {
  ApprovedProviderResponse,
  CreatedListingResponse,
  DeletedListingResponse,
  ListingListResponse,
  ListingResponse,
  PayoutWalletBody,
  PayoutWalletResponse,
} from './schemas.js';
import {
  approveListing,
  createListing,
  deleteListing,
  getListing,
  listingsAwaitingReview,
  listListings,
  payoutWalletOf,
  setPayoutWallet,
  updateListing,
} from './service.js';
import { listingView } from './views.js';

const security: { [scheme: string]: string[] }[] = [{ apiKey: [] }, { bearer: [] }];

export const providerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;
  // An agent's key (one with a spending policy) cannot list providers or move the payout: 403.
  const guard = { config: { auth: 'account' as const, keyPolicy: 'refuse' as const } };
  const errors = { 400: ErrorShapeA, 401: ErrorShapeA, 403: ErrorShapeA, 404: ErrorShapeA };

  app.post(
    '/v1/provider/listings',
    {
      schema: {
        tags: ['provider'],
        security,
        summary:
          'List a provider you own; provider_secret is shown only here (pending_review outside devnet)',
        body: ProviderInputSchema,
        response: {
          201: CreatedListingResponse,
          400: ErrorShapeA,
          401: ErrorShapeA,
          403: ErrorShapeA,
          409: ErrorShapeA,
        },
      },
      ...guard,
    },
    async (request, reply) => {
      const created = await createListing(deps, accountOf(request).accountId, request.body);
      return reply.status(201).send(envelope(request, await loadCreatedProviderView(deps.db.orm, created)));
    },
  );

  app.get(
    '/v1/provider/listings',
    {
      schema: {
        tags: ['provider'],
        security,
        summary: 'The providers your account owns, with any change waiting for review',
        response: { 200: ListingListResponse, 401: ErrorShapeA, 403: ErrorShapeA },
      },
      ...guard,
    },
    async (request) => {
      const listings = await listListings(deps, accountOf(request).accountId);
      return envelope(request, await Promise.all(listings.map((l) => listingView(deps.db.orm, l))));
    },
  );

  app.get(
    '/v1/provider/listings/:providerId',
    {
      schema: {
        tags: ['provider'],
        security,
        summary: 'One of your listings (another account’s is 404)',
        params: ProviderParams,
        response: { 200: ListingResponse, ...errors },
      },
      ...guard,
    },
    async (request) => {
      const listing = await getListing(deps, accountOf(request).accountId, request.params.providerId);
      return envelope(request, await listingView(deps.db.orm, listing));
    },
  );

  app.put(
    '/v1/provider/listings/:providerId',
    {
      schema: {
        tags: ['provider'],
        security,
        summary:
          'Replace your listing (secret kept); outside devnet a new base_url or a higher price waits for review',
        params: ProviderParams,
        body: ProviderInputSchema,
        response: { 200: ListingResponse, ...errors },
      },
      ...guard,
    },
    async (request) => {
      const { providerId } = request.params;
      const listing = await updateListing(deps, accountOf(request).accountId, providerId, request.body);
      return envelope(request, await listingView(deps.db.orm, listing));
    },
  );

  app.delete(
    '/v1/provider/listings/:providerId',
    {
      schema: {
        tags: ['provider'],
        security,
        summary: 'Delete your listing and its endpoints',
        params: ProviderParams,
        response: { 200: DeletedListingResponse, ...errors },
      },
      ...guard,
    },
    async (request) => {
      await deleteListing(deps, accountOf(request).accountId, request.params.providerId);
      return envelope(request, { provider_id: request.params.providerId, deleted: true as const });
    },
  );

  app.put(
    '/v1/provider/payout-wallet',
    {
      schema: {
        tags: ['provider'],
        security,
        summary: 'Where your earnings are paid: one of your linked wallets',
        body: PayoutWalletBody,
        response: { 200: PayoutWalletResponse, 400: ErrorShapeA, 401: ErrorShapeA, 403: ErrorShapeA },
      },
      ...guard,
    },
    async (request) => {
      const wallet = await setPayoutWallet(deps, accountOf(request).accountId, request.body.wallet_address);
      return envelope(request, wallet);
    },
  );

  app.get(
    '/v1/provider/payout-wallet',
    {
      schema: {
        tags: ['provider'],
        security,
        summary: 'Your payout wallet (null when none is set)',
        response: { 200: PayoutWalletResponse, 401: ErrorShapeA, 403: ErrorShapeA },
      },
      ...guard,
    },
    async (request) => envelope(request, await payoutWalletOf(deps, accountOf(request).accountId)),
  );

  app.get(
    '/v1/admin/listings',
    {
      schema: {
        tags: ['admin'],
        summary: 'Listings waiting for review: new ones (pending_review) and live ones with a change held',
        security: [{ bearer: [] }],
        response: { 200: ListingListResponse, 401: ErrorShapeA },
      },
      config: { auth: 'admin' },
    },
    async (request) => {
      const listings = await listingsAwaitingReview(deps);
      return envelope(request, await Promise.all(listings.map((l) => listingView(deps.db.orm, l))));
    },
  );

  app.post(
    '/v1/admin/providers/:providerId/approve',
    {
      schema: {
        tags: ['admin'],
        summary: 'Approve a listing: make it live, with its change waiting for review applied',
        security: [{ bearer: [] }],
        params: ProviderParams,
        response: { 200: ApprovedProviderResponse, 400: ErrorShapeA, 401: ErrorShapeA, 404: ErrorShapeA },
      },
      config: { auth: 'admin' },
    },
    async (request) => {
      const provider = await approveListing(deps, request.params.providerId);
      return envelope(request, await loadAdminProviderView(deps.db.orm, provider));
    },
  );
};
