// The shape of one `svc admin <name>` sub-command. Modules export theirs; src/cli-admin.ts lists them.
import type { AppDeps } from '../deps.js';

export interface AdminCommand {
  name: string;
  usage: string;
  summary: string;
  options: Record<string, { type: 'string' }>;
  run(deps: AppDeps, args: Record<string, string | undefined>): Promise<unknown>;
}
