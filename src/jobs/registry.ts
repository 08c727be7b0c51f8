// Every background job of the service, started by src/server.ts. Modules add theirs here.
import { purgeSignInStateJob } from '../modules/auth/jobs.js';
import { expirePaymentsJob } from '../modules/billing/jobs.js';
import { platformTransactionsJob } from '../modules/chain/index.js';
import { depositWatcherJob } from '../modules/deposits/index.js';
import { refreshEndpointStatsJob } from '../modules/execution/stats.js';
import { sweepAbandonedCallsJob } from '../modules/execution/sweeper.js';
import { notificationJobs } from '../modules/notifications/jobs.js';
import type { BackgroundJob } from './runner.js';

export const backgroundJobs: BackgroundJob[] = [
  sweepAbandonedCallsJob,
  refreshEndpointStatsJob,
  ...notificationJobs,
  expirePaymentsJob,
  purgeSignInStateJob,
  platformTransactionsJob,
  depositWatcherJob,
];
