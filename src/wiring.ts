// The modules' contributions that are not routes, gathered in one place for the entry points (app.ts,
// server.ts, cli.ts): background jobs and cross-module subscriptions. Plumbing (jobs runner, deps) never
// imports a module; each module hands its jobs and handlers over here instead (docs/architecture.md).
import type { AppDeps } from './deps.js';
import type { BackgroundJob } from './jobs/runner.js';
import { purgeSignInStateJob } from './modules/auth/index.js';
import { expirePaymentsJob } from './modules/billing/index.js';
import { platformTransactionsJob } from './modules/chain/index.js';
import { depositWatcherJob } from './modules/deposits/index.js';
import { refreshEndpointStatsJob, sweepAbandonedCallsJob } from './modules/execution/index.js';
import { notificationJobs, subscribeNotifications } from './modules/notifications/index.js';
import { dailySettlementJob, subscribePayouts } from './modules/payouts/index.js';

/** Every background job of the service, started by src/server.ts. */
export const backgroundJobs: BackgroundJob[] = [
  sweepAbandonedCallsJob,
  refreshEndpointStatsJob,
  ...notificationJobs,
  expirePaymentsJob,
  purgeSignInStateJob,
  platformTransactionsJob,
  depositWatcherJob,
  dailySettlementJob,
];

/** Subscribes the reacting modules to the hooks and events of the others (once per deps). */
export function subscribeModules(deps: AppDeps): void {
  subscribeNotifications(deps);
  subscribePayouts(deps);
}
