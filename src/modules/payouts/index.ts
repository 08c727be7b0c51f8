// Provider earnings and the daily on-chain settlement that pays them (docs/payouts.md): the settlement
// job, the admin run, the provider and operator views, and the payout entries of the wallet history.
import type { AppDeps } from '../../deps.js';
import { onPlatformTxFinished } from './service.js';

export { payoutAdminCommands } from './cli.js';
export type { SettlementRow, SettlementStatus } from './repo.js';
export { payoutRoutes } from './routes.js';
export { dailySettlementJob, lastMidnightUtc, nextSettlementAt, runDailySettlement } from './schedule.js';
export { feeOf, getSettlement, payPending, runSettlement } from './service.js';
export { type PayoutHistoryEntry, payoutHistory, type SettlementView, toSettlementView } from './views.js';

/** Payouts learn the outcome of their transfers from the chain module's platform transaction job. */
export function subscribePayouts(deps: AppDeps): void {
  deps.hooks.on('platform-tx.finished', 'payouts', (ex, e) => onPlatformTxFinished(ex, deps, e));
}
