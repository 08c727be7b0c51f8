// Self-service listings: an account lists, changes and removes the providers it owns, through the
// catalogue's own functions (same validation, secret and encryption as the admin API). Outside devnet
// a new listing waits for an operator's approval, and so does a change of base_url or a price increase
// to a live listing, while the previous version stays live.
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { usdcToCredits } from '../../lib/money.js';
import { linkedWallets } from '../auth/index.js';
import {
  type CatalogProvider,
  createProvider,
  deleteProvider,
  findProvider,
  listOwnedProviders,
  listProvidersForReview,
  type ProviderInput,
  replaceProvider,
  setProviderStatus,
  validateProviderInput,
} from '../catalog/index.js';
import {
  dropPendingChange,
  findPayoutWallet,
  loadPendingChange,
  type PayoutWallet,
  type PendingChange,
  providersWithPendingChanges,
  savePendingChange,
  upsertPayoutWallet,
} from './repo.js';

type ProvidersDeps = Pick<AppDeps, 'db' | 'clock' | 'events' | 'secrets' | 'config'>;

export interface Listing {
  provider: CatalogProvider;
  pending: PendingChange | undefined;
}

/** Whether listings are reviewed by an operator: everywhere but devnet. */
const reviewed = (deps: ProvidersDeps) => deps.config.env !== 'devnet';

function notFound(providerId: string): AppError {
  return new AppError('SVC-EXE-001', `Provider ${providerId} not found`);
}

/** The account's listing; another account's (or an unknown id) is 404, not 403: ids are not disclosed. */
async function ownedProvider(deps: ProvidersDeps, accountId: string, providerId: string) {
  const provider = await findProvider(deps.db.orm, providerId);
  if (!provider || provider.ownerAccountId !== accountId) throw notFound(providerId);
  return provider;
}

export async function createListing(deps: ProvidersDeps, accountId: string, input: ProviderInput) {
  const status = reviewed(deps) ? 'pending_review' : 'active';
  return createProvider(deps, { ...input, owner_account_id: accountId }, status);
}

export async function listListings(deps: ProvidersDeps, accountId: string): Promise<Listing[]> {
  const providers = await listOwnedProviders(deps.db.orm, accountId);
  return Promise.all(
    providers.map(async (provider) => ({
      provider,
      pending: await loadPendingChange(deps.db.orm, provider.id),
    })),
  );
}

/**
 * What waits for an operator: new listings (`pending_review`) and live listings with a change held for
 * review, each with that change; ordered by provider id.
 */
export async function listingsAwaitingReview(deps: ProvidersDeps): Promise<Listing[]> {
  const changed = await providersWithPendingChanges(deps.db.orm);
  const providers = await listProvidersForReview(deps.db.orm, changed);
  return Promise.all(
    providers.map(async (provider) => ({
      provider,
      pending: await loadPendingChange(deps.db.orm, provider.id),
    })),
  );
}

export async function getListing(
  deps: ProvidersDeps,
  accountId: string,
  providerId: string,
): Promise<Listing> {
  const provider = await ownedProvider(deps, accountId, providerId);
  return { provider, pending: await loadPendingChange(deps.db.orm, providerId) };
}

/**
 * A change callers must not meet unawares: another base_url (the calls go elsewhere) or a higher price
 * on an endpoint that stays (same slug). New endpoints, cheaper prices and texts are not reviewed.
 */
export function changeNeedsReview(live: CatalogProvider, input: ProviderInput): boolean {
  if (input.base_url.replace(/\/+$/, '') !== live.baseUrl) return true;
  const before = new Map(live.endpoints.map((e) => [e.slug, e.priceCredits]));
  return input.endpoints.some((e) => {
    const old = before.get(e.slug);
    return old !== undefined && usdcToCredits(e.pricing.price_per_call_usdc) > old;
  });
}

/**
 * Full replace of the account's listing. Outside devnet a live listing's reviewed change is stored and
 * the live version kept; any other change applies at once and supersedes a change still waiting.
 */
export async function updateListing(
  deps: ProvidersDeps,
  accountId: string,
  providerId: string,
  input: ProviderInput,
): Promise<Listing> {
  const live = await ownedProvider(deps, accountId, providerId);
  // Validated first, so a change is compared (prices parsed) only once it is known to be well formed.
  await validateProviderInput(deps, input, providerId);
  if (reviewed(deps) && live.status === 'active' && changeNeedsReview(live, input)) {
    const pending = await savePendingChange(deps.db.orm, providerId, input, deps.clock.now());
    return { provider: live, pending };
  }
  const provider = await replaceProvider(deps, providerId, input, {
    alsoInTransaction: (tx) => dropPendingChange(tx, providerId),
  });
  return { provider, pending: undefined };
}

export async function deleteListing(
  deps: ProvidersDeps,
  accountId: string,
  providerId: string,
): Promise<void> {
  await ownedProvider(deps, accountId, providerId);
  await deleteProvider(deps, providerId);
}

/**
 * The operator's approval: the listing becomes live, with its change waiting for review applied (and
 * validated again) in the same transaction. Approving a live listing with nothing waiting changes nothing.
 */
export async function approveListing(deps: ProvidersDeps, providerId: string): Promise<CatalogProvider> {
  const provider = await findProvider(deps.db.orm, providerId);
  if (!provider) throw notFound(providerId);
  const pending = await loadPendingChange(deps.db.orm, providerId);
  if (pending) {
    return replaceProvider(deps, providerId, pending.input, {
      status: 'active',
      alsoInTransaction: (tx) => dropPendingChange(tx, providerId, pending.requestedAt),
    });
  }
  if (provider.status === 'active') return provider;
  return setProviderStatus(deps, providerId, 'active');
}

/** Sets where the account's earnings are paid: one of its linked wallets (lowercase), else 400. */
export async function setPayoutWallet(
  deps: ProvidersDeps,
  accountId: string,
  walletAddress: string,
): Promise<PayoutWallet> {
  const address = walletAddress.toLowerCase();
  if (!(await linkedWallets(deps.db.orm, accountId)).has(address)) {
    const message = 'is not a wallet linked to this account (link it with POST /v1/wallet/links first)';
    throw new AppError('SVC-VAL-001', `wallet_address ${message}`, {
      errors: [{ path: 'wallet_address', message }],
    });
  }
  await upsertPayoutWallet(deps.db.orm, accountId, address, deps.clock.now());
  return findPayoutWallet(deps.db.orm, accountId);
}

export const payoutWalletOf = (deps: ProvidersDeps, accountId: string) =>
  findPayoutWallet(deps.db.orm, accountId);
