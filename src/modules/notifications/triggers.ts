// Notification triggers, called by other modules inside the transaction of the triggering event so the
// e-mail is queued (outbox row) atomically with it. Each decides from preferences and cooldowns whether
// to queue. (Stubs until the notifications issue implements them; signatures are the contract.)

import type { Executor } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';

/** After any decrease of an account's balance (debit, payment refund): low balance and depleted. */
export async function afterBalanceDecrease(
  _ex: Executor,
  _deps: AppDeps,
  _e: { accountId: string; balanceBefore: bigint; balanceAfter: bigint },
): Promise<void> {}

/** A call was refused because it would exceed the daily spend limit. */
export async function onDailyLimitReached(
  _ex: Executor,
  _deps: AppDeps,
  _e: { accountId: string; limitCredits: bigint; spentCredits: bigint; day: string },
): Promise<void> {}

/** A call was refunded after a provider 5xx, timeout or connection failure. */
export async function onCallRefunded(
  _ex: Executor,
  _deps: AppDeps,
  _e: {
    accountId: string;
    callId: string;
    providerId: string;
    endpointSlug: string;
    credits: bigint;
    reason: string;
  },
): Promise<void> {}

/** A card top-up completed. */
export async function onPaymentCompleted(
  _ex: Executor,
  _deps: AppDeps,
  _e: { accountId: string; paymentId: string; amountUsdCents: number; credits: bigint; newBalance: bigint },
): Promise<void> {}

/** An administrator suspended the account. */
export async function onAccountSuspended(
  _ex: Executor,
  _deps: AppDeps,
  _e: { accountId: string; reason: string | null },
): Promise<void> {}
