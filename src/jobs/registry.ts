// Every background job of the service, started by src/server.ts. Modules add theirs here.
import { notificationJobs } from '../modules/notifications/jobs.js';
import type { BackgroundJob } from './runner.js';

export const backgroundJobs: BackgroundJob[] = [...notificationJobs];
