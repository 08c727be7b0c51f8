// Providers as a side of the market: self-service listings (through the catalogue's functions), the
// review of listings outside devnet, and the payout wallet (table `payout_wallets`).
export { listingAdminCommands } from './cli.js';
export { findPayoutWallet, type PayoutWallet } from './repo.js';
export { providerRoutes } from './routes.js';
export { approveListing, changeNeedsReview } from './service.js';
