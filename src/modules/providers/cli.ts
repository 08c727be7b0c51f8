// The operator's review of self-service listings from the terminal (`svc admin listings`,
// `svc admin approve-listing`): the same service functions and shapes as the admin API.
import type { AdminCommand } from '../../lib/admin-command.js';
import { loadAdminProviderView } from '../catalog/index.js';
import { approveListing, listingsAwaitingReview } from './service.js';
import { listingView } from './views.js';

function providerOption(args: Record<string, string | undefined>): string {
  const v = args.provider;
  if (!v) throw new Error('--provider is required');
  return v;
}

export const listingAdminCommands: AdminCommand[] = [
  {
    name: 'listings',
    usage: 'listings',
    summary: 'listings waiting for review: new ones and live ones with a change held',
    options: {},
    run: async (deps) =>
      Promise.all((await listingsAwaitingReview(deps)).map((l) => listingView(deps.db.orm, l))),
    api: () => ({ method: 'GET', path: '/v1/admin/listings' }),
  },
  {
    name: 'approve-listing',
    usage: 'approve-listing --provider ID',
    summary: 'make a listing live, with its change waiting for review applied',
    options: { provider: { type: 'string' } },
    run: async (deps, args) =>
      loadAdminProviderView(deps.db.orm, await approveListing(deps, providerOption(args))),
    api: (args) => ({
      method: 'POST',
      path: `/v1/admin/providers/${encodeURIComponent(providerOption(args))}/approve`,
    }),
  },
];
