// Deposits and linked wallets (docs/deposits.md): the routes, the deposit watcher job, and what other
// modules may call (x402 records the transfers it settled so they are never claimed as deposits).

export { runDepositCli } from './cli.js';
export { AlreadyCredited, creditDeposit, type Deposit, recordSettledTransfers } from './credit.js';
export { depositRoutes } from './routes.js';
export { submitDeposit } from './service.js';
export { depositTransfers, type IncomingTransfer } from './verify.js';
export { depositWatcherJob, scanDeposits } from './watcher.js';
