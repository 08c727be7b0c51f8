// Background job of the billing module: pending checkouts older than 30 minutes become `expired`.
import type { BackgroundJob } from '../../jobs/runner.js';
import { expireStalePayments } from './payments.js';

export const expirePaymentsJob: BackgroundJob = {
  name: 'billing.expire-payments',
  intervalMs: 60_000,
  run: (deps) => expireStalePayments(deps),
};
