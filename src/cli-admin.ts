// Admin sub-commands of the CLI. Each calls the same service function as the matching admin API route.
import type { AdminCommand } from './lib/admin-command.js';
import { changeAccountStatus, createAccountWithKey } from './modules/auth/index.js';
import { createCoupon } from './modules/billing/index.js';
import { providerAdminCommands } from './modules/catalog/index.js';
import { creditAccountByAdmin, toLedgerTransaction } from './modules/ledger/index.js';
import { mailAdminCommands } from './modules/notifications/index.js';
import { payoutAdminCommands } from './modules/payouts/index.js';

export type { AdminCommand } from './lib/admin-command.js';

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
  {
    name: 'suspend-account',
    usage: 'suspend-account --account ACC_ID [--reason R]',
    summary: 'suspend an account (403 on its every call at once; e-mails the owner)',
    options: { account: { type: 'string' }, reason: { type: 'string' } },
    run: (deps, args) => changeAccountStatus(deps, required(args, 'account'), 'suspended', args.reason),
  },
  {
    name: 'reinstate-account',
    usage: 'reinstate-account --account ACC_ID [--reason R]',
    summary: 'reinstate a suspended account',
    options: { account: { type: 'string' }, reason: { type: 'string' } },
    run: (deps, args) => changeAccountStatus(deps, required(args, 'account'), 'active', args.reason),
  },
  {
    name: 'credit',
    usage: 'credit --account ACC_ID --amount-usdc N --description D [--idempotency-key K]',
    summary: 'credit an account (admin_credit ledger entry); a repeated key credits once',
    options: {
      account: { type: 'string' },
      'amount-usdc': { type: 'string' },
      description: { type: 'string' },
      'idempotency-key': { type: 'string' },
    },
    run: async (deps, args) => {
      const key = args['idempotency-key'];
      const { entry } = await creditAccountByAdmin(deps.db, {
        accountId: required(args, 'account'),
        amountUsdc: required(args, 'amount-usdc'),
        description: required(args, 'description'),
        ...(key ? { idempotencyKey: key } : {}),
      });
      return toLedgerTransaction(entry);
    },
  },
  {
    name: 'create-coupon',
    usage: 'create-coupon --code C --credits-usdc N --description D [--expires-at T] [--max-redemptions N]',
    summary: 'create a coupon (codes are case-insensitive)',
    options: {
      code: { type: 'string' },
      'credits-usdc': { type: 'string' },
      description: { type: 'string' },
      'expires-at': { type: 'string' },
      'max-redemptions': { type: 'string' },
    },
    run: (deps, args) =>
      createCoupon(deps, {
        code: required(args, 'code'),
        credits_usdc: required(args, 'credits-usdc'),
        description: required(args, 'description'),
        expires_at: args['expires-at'],
        max_redemptions: args['max-redemptions'] === undefined ? undefined : Number(args['max-redemptions']),
      }),
  },
  ...providerAdminCommands,
  ...mailAdminCommands,
  ...payoutAdminCommands,
];
