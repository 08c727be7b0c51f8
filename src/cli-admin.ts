// Admin sub-commands of the CLI. Each calls the same service function as the matching admin API route.
import { type FieldError, fieldErrorsText } from './errors/field-errors.js';
import type { AdminCommand } from './lib/admin-command.js';
import { changeAccountStatus, createAccountWithKey } from './modules/auth/index.js';
import { createCoupon } from './modules/billing/index.js';
import { providerAdminCommands } from './modules/catalog/index.js';
import { creditAccountByAdmin, toLedgerTransaction } from './modules/ledger/index.js';
import { mailAdminCommands } from './modules/notifications/index.js';
import { payoutAdminCommands } from './modules/payouts/index.js';
import { listingAdminCommands } from './modules/providers/index.js';

export type { AdminCommand } from './lib/admin-command.js';

const accountPath = (args: Record<string, string | undefined>, action: string) =>
  `/v1/admin/accounts/${encodeURIComponent(required(args, 'account'))}/${action}`;

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
    api: (args) => ({
      method: 'POST',
      path: '/v1/admin/accounts',
      body: { email: required(args, 'email'), ...(args.name ? { name: args.name } : {}) },
    }),
  },
  {
    name: 'suspend-account',
    usage: 'suspend-account --account ACC_ID [--reason R]',
    summary: 'suspend an account (403 on its every call at once; e-mails the owner)',
    options: { account: { type: 'string' }, reason: { type: 'string' } },
    run: (deps, args) => changeAccountStatus(deps, required(args, 'account'), 'suspended', args.reason),
    api: (args) => ({
      method: 'POST',
      path: accountPath(args, 'suspend'),
      body: args.reason ? { reason: args.reason } : {},
    }),
  },
  {
    name: 'reinstate-account',
    usage: 'reinstate-account --account ACC_ID [--reason R]',
    summary: 'reinstate a suspended account',
    options: { account: { type: 'string' }, reason: { type: 'string' } },
    run: (deps, args) => changeAccountStatus(deps, required(args, 'account'), 'active', args.reason),
    api: (args) => ({
      method: 'POST',
      path: accountPath(args, 'reinstate'),
      body: args.reason ? { reason: args.reason } : {},
    }),
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
    api: (args) => ({
      method: 'POST',
      path: accountPath(args, 'credits'),
      body: { amount_usdc: required(args, 'amount-usdc'), description: required(args, 'description') },
      ...(args['idempotency-key'] ? { idempotencyKey: args['idempotency-key'] } : {}),
    }),
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
    api: (args) => ({
      method: 'POST',
      path: '/v1/admin/coupons',
      body: {
        code: required(args, 'code'),
        credits_usdc: required(args, 'credits-usdc'),
        description: required(args, 'description'),
        ...(args['expires-at'] ? { expires_at: args['expires-at'] } : {}),
        ...(args['max-redemptions'] === undefined
          ? {}
          : { max_redemptions: Number(args['max-redemptions']) }),
      },
    }),
  },
  ...providerAdminCommands,
  ...listingAdminCommands,
  ...mailAdminCommands,
  ...payoutAdminCommands,
];

/**
 * The running service at `url`, if one answers /healthz within a second: then the admin commands go
 * through its admin API, since it holds the embedded database (a second opener is refused).
 */
export async function runningService(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Runs an admin command over the admin API; returns the answer's `data`, or throws its error. */
export async function runOverApi(
  cmd: AdminCommand,
  args: Record<string, string | undefined>,
  url: string,
  adminToken: string,
): Promise<unknown> {
  if (!cmd.api) {
    throw new Error(
      `svc admin ${cmd.name} needs the database, which the service running at ${url} holds: stop the service first`,
    );
  }
  const req = cmd.api(args);
  const res = await fetch(`${url}${req.path}`, {
    method: req.method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(req.idempotencyKey ? { 'idempotency-key': req.idempotencyKey } : {}),
    },
    ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
  });
  const text = await res.text();
  let json: { data?: unknown; error?: { code: string; message: string; details?: { errors?: unknown } } };
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${url} answered ${res.status}: ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const errors = json.error?.details?.errors as FieldError[] | undefined;
    const detail = errors?.length ? fieldErrorsText(errors) : undefined;
    throw new Error(
      `${json.error?.code ?? res.status}: ${detail ?? json.error?.message ?? text.slice(0, 200)}`,
    );
  }
  return json.data ?? json;
}
