// A listing as its owner and the operator see it: the admin view of the provider, plus the change
// waiting for review.
import type { Executor } from '../../db/index.js';
import { loadAdminProviderView } from '../catalog/index.js';
import type { Listing } from './service.js';

export async function listingView(ex: Executor, { provider, pending }: Listing) {
  return {
    ...(await loadAdminProviderView(ex, provider)),
    pending_change: pending ? { requested_at: pending.requestedAt, listing: pending.input } : null,
  };
}
