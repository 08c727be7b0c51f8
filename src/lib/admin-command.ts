// The shape of one `svc admin <name>` sub-command. Modules export theirs; src/cli-admin.ts lists them.
import type { AppDeps } from '../deps.js';

export interface AdminCommand {
  name: string;
  usage: string;
  summary: string;
  options: Record<string, { type: 'string' }>;
  run(deps: AppDeps, args: Record<string, string | undefined>): Promise<unknown>;
  /**
   * The same command as an admin API request, used when a service is running (it holds the embedded
   * database). Without it the command needs the database: it refuses while a service answers.
   */
  api?(args: Record<string, string | undefined>): AdminApiRequest;
}

export interface AdminApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  idempotencyKey?: string;
}
