// The wallet view of an account: balance and history as the wallet API shows them.
export { walletRoutes } from './routes.js';
export { type HistoryPage, type WalletBalance, walletBalance, walletHistory } from './service.js';
