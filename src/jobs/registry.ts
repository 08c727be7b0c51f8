// Every background job of the service, started by src/server.ts. Modules add theirs here.
import type { BackgroundJob } from './runner.js';

export const backgroundJobs: BackgroundJob[] = [];
