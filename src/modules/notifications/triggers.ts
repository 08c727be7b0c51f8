// Notification triggers, called by other modules inside the transaction of the triggering event so the
// e-mail is queued (outbox row) atomically with it. Each decides from preferences and cooldowns whether
// to queue. They only run SQL on the given executor (no network): delivery is the `email-delivery` job.
// An error here is a database error and fails the caller's transaction like any other statement would.

import { sql } from 'drizzle-orm';
import { type Executor, one } from '../../db/index.js';
import type { AppDeps, DomainHooks } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import {
  accountSuspendedMail,
  creditsDepletedMail,
  creditsRefundedMail,
  dailyLimitReachedMail,
  lowBalanceMail,
  paymentConfirmedMail,
  payoutFailedMail,
  payoutSentMail,
} from './messages.js';
import { type EmailKind, enqueueEmail } from './outbox.js';
import { loadRecipient, prefEnabled, type Recipient, takeCooldown } from './recipients.js';
import { type MailContent, renderMail } from './render.js';

/** docs/notifications.md: at most one low-balance mail per 24 hours per threshold value. */
export const LOW_BALANCE_COOLDOWN_MS = 24 * 60 * 60_000;

async function queue(
  ex: Executor,
  deps: AppDeps,
  to: Recipient,
  kind: EmailKind,
  dedupeKey: string,
  content: MailContent,
): Promise<boolean> {
  return enqueueEmail(ex, {
    kind,
    to: to.email,
    accountId: to.id,
    dedupeKey,
    now: deps.clock.now(),
    ...renderMail(deps.config.publicUrl, content),
  });
}

/** The ledger entry just written for the account: the natural key of a balance event. */
async function balanceEventKey(ex: Executor, accountId: string): Promise<string> {
  const row = await one<{ id: string }>(
    ex,
    sql`SELECT id FROM ledger_entries WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT 1`,
  );
  return row?.id ?? newId('evt');
}

/** After any decrease of an account's balance (debit, payment refund): low balance and depleted. */
export async function afterBalanceDecrease(
  ex: Executor,
  deps: AppDeps,
  e: { accountId: string; balanceBefore: bigint; balanceAfter: bigint },
): Promise<void> {
  const depleted = e.balanceBefore > 0n && e.balanceAfter === 0n;
  const to = await loadRecipient(ex, e.accountId);
  if (!to) return;
  if (depleted) {
    // Depletion says more than "low": the low-balance mail is not sent for the same event.
    const key = await balanceEventKey(ex, e.accountId);
    await queue(
      ex,
      deps,
      to,
      'credits_depleted',
      `credits_depleted:${key}`,
      creditsDepletedMail(deps.config.publicUrl),
    );
    return;
  }
  const threshold = to.low_balance_threshold_credits;
  const crossed = threshold !== null && e.balanceBefore >= threshold && e.balanceAfter < threshold;
  if (!crossed || !prefEnabled(to.email_prefs, 'lowBalance')) return;
  const now = deps.clock.now();
  if (!(await takeCooldown(ex, to.id, 'low_balance', threshold.toString(), now, LOW_BALANCE_COOLDOWN_MS)))
    return;
  const key = await balanceEventKey(ex, e.accountId);
  await queue(
    ex,
    deps,
    to,
    'low_balance',
    `low_balance:${key}`,
    lowBalanceMail(deps.config.publicUrl, { balance: e.balanceAfter, threshold }),
  );
}

/**
 * A call was refused because it would exceed the daily spend limit. At most one mail per account per UTC
 * day (`day`, YYYY-MM-DD), however many calls are refused. Call it on an executor that commits: a
 * transaction rolled back by the refusal would take the mail with it.
 */
export async function onDailyLimitReached(
  ex: Executor,
  deps: AppDeps,
  e: { accountId: string; limitCredits: bigint; spentCredits: bigint; day: string },
): Promise<void> {
  const to = await loadRecipient(ex, e.accountId);
  if (!to || !prefEnabled(to.email_prefs, 'dailyLimitReached')) return;
  await queue(
    ex,
    deps,
    to,
    'daily_limit_reached',
    `daily_limit_reached:${to.id}:${e.day}`,
    dailyLimitReachedMail(deps.config.publicUrl, {
      limit: e.limitCredits,
      spent: e.spentCredits,
      day: e.day,
    }),
  );
}

/** A call was refunded after a provider 5xx, timeout or connection failure. */
export async function onCallRefunded(
  ex: Executor,
  deps: AppDeps,
  e: {
    accountId: string;
    callId: string;
    providerId: string;
    endpointSlug: string;
    credits: bigint;
    reason: string;
  },
): Promise<void> {
  const to = await loadRecipient(ex, e.accountId);
  if (!to || !prefEnabled(to.email_prefs, 'creditsRefunded')) return;
  await queue(
    ex,
    deps,
    to,
    'credits_refunded',
    `credits_refunded:${e.callId}`,
    creditsRefundedMail(deps.config.publicUrl, {
      callId: e.callId,
      capability: `${e.providerId}/${e.endpointSlug}`,
      credits: e.credits,
      reason: e.reason,
    }),
  );
}

/** A card top-up completed. Always mailed (`paymentConfirmed: false` is accepted but not honoured). */
export async function onPaymentCompleted(
  ex: Executor,
  deps: AppDeps,
  e: {
    accountId: string;
    paymentId: string;
    amountUsdCents: number;
    credits: bigint;
    newBalance: bigint;
    /** The payment's receipt page; defaults to the billing module's `/receipts/<paymentId>`. */
    receiptUrl?: string;
  },
): Promise<void> {
  const to = await loadRecipient(ex, e.accountId);
  if (!to) return;
  await queue(
    ex,
    deps,
    to,
    'payment_confirmed',
    `payment_confirmed:${e.paymentId}`,
    paymentConfirmedMail(deps.config.publicUrl, {
      ...e,
      receiptUrl: e.receiptUrl ?? `${deps.config.publicUrl}/receipts/${e.paymentId}`,
    }),
  );
}

/** An administrator suspended the account. Always mailed. */
export async function onAccountSuspended(
  ex: Executor,
  deps: AppDeps,
  e: { accountId: string; reason: string | null },
): Promise<void> {
  const to = await loadRecipient(ex, e.accountId);
  if (!to) return;
  await queue(
    ex,
    deps,
    to,
    'account_suspended',
    `account_suspended:${to.id}:${deps.clock.now().getTime()}`,
    accountSuspendedMail(deps.config.publicUrl, { reason: e.reason }),
  );
}

function loginCodeMail(code: string, publicUrl: string) {
  const text = [
    `Your Svc sign-in code is ${code}.`,
    '',
    'It expires in 10 minutes and can be used once. If you did not ask to sign in, ignore this e-mail.',
    '',
    publicUrl,
  ].join('\n');
  const html = `<p>Your Svc sign-in code is <strong style="font-size:1.4em;letter-spacing:.1em">${code}</strong>.</p>
<p>It expires in 10 minutes and can be used once. If you did not ask to sign in, ignore this e-mail.</p>`;
  return { subject: `Your Svc sign-in code: ${code}`, text, html };
}

/** An e-mail login code was issued (the auth module): always mailed, whatever the preferences. */
export async function onLoginCodeIssued(
  ex: Executor,
  deps: AppDeps,
  e: { email: string; code: string; codeId: string; accountId?: string; now: Date },
): Promise<void> {
  await enqueueEmail(ex, {
    kind: 'login_code',
    to: e.email,
    ...loginCodeMail(e.code, deps.config.publicUrl),
    dedupeKey: `login_code:${e.codeId}`,
    ...(e.accountId ? { accountId: e.accountId } : {}),
    now: e.now,
  });
}

/** A provider payout confirmed on-chain, or failed: its owner is told (always; it is about their money). */
export async function onSettlementOutcome(
  ex: Executor,
  deps: AppDeps,
  e:
    | ({ outcome: 'paid' } & DomainHooks['settlement.paid'])
    | ({ outcome: 'failed' } & DomainHooks['settlement.failed']),
) {
  const to = await loadRecipient(ex, e.accountId);
  if (!to) return;
  const kind = e.outcome === 'paid' ? 'payout_sent' : 'payout_failed';
  const mail =
    e.outcome === 'paid'
      ? payoutSentMail(deps.config.publicUrl, e)
      : payoutFailedMail(deps.config.publicUrl, e);
  await queue(ex, deps, to, kind, `${kind}:${e.settlementId}`, mail);
}
