// Admin sub-commands of the CLI. Each calls the same service function as the matching admin API route.
import type { AppDeps } from './deps.js';
import { createAccountWithKey } from './modules/auth/accounts.js';

export interface AdminCommand {
  name: string;
  usage: string;
  summary: string;
  options: Record<string, { type: 'string' }>;
  run(deps: AppDeps, args: Record<string, string | undefined>): Promise<unknown>;
}

function required(args: Record<string, string | undefined>, name: string): string {
  const v = args[name];
  if (!v) throw new Error(`--${name} is required`);
  return v;
}

export const adminCommands: AdminCommand[] = [
  {
    name: 'create-account',
    usage: 'create-account --email E',
    summary: 'create an account with a first API key',
    options: { email: { type: 'string' }, name: { type: 'string' } },
    run: (deps, args) => createAccountWithKey(deps.db, required(args, 'email'), args.name),
  },
];
