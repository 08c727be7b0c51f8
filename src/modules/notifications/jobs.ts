// The notification module's background jobs (registered in src/jobs/registry.ts). All are safe on N
// instances: delivery claims rows with SKIP LOCKED + lease; detection and digests take a state row first.
import type { BackgroundJob } from '../../jobs/runner.js';
import { deliverDueEmails } from './delivery.js';
import { queueDigests } from './digests.js';
import { detectUnusualActivity } from './unusual-activity.js';

export const emailDeliveryJob: BackgroundJob = {
  name: 'email-delivery',
  intervalMs: 5_000,
  run: deliverDueEmails,
};
export const unusualActivityJob: BackgroundJob = {
  name: 'unusual-activity',
  intervalMs: 5 * 60_000,
  run: detectUnusualActivity,
};
export const emailDigestsJob: BackgroundJob = {
  name: 'email-digests',
  intervalMs: 15 * 60_000,
  run: queueDigests,
};

export const notificationJobs: BackgroundJob[] = [emailDeliveryJob, unusualActivityJob, emailDigestsJob];
