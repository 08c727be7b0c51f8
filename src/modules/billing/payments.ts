// Card top-ups: the payment state machine. pending -> completed | failed | expired, completed -> refunded.
// Every transition is one guarded UPDATE inside the caller's transaction, so a replayed or reordered event
// finds the row in another state and changes nothing. Locks: payment row first, then the account (postEntry).
import { sql } from 'drizzle-orm';
import { one, rows, type Tx, toIso } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { newId } from '../../lib/ids.js';
import { countSuccessfulPayment, postEntry } from '../ledger/index.js';
import type { CardProcessor, CreatedCheckout } from './processors.js';

export type PaymentStatus = 'pending' | 'completed' | 'failed' | 'expired' | 'refunded';

export interface PaymentRow {
  id: string;
  account_id: string;
  processor: 'local' | 'stripe';
  session_id: string;
  processor_payment_ref: string | null;
  amount_usd_cents: number;
  credits: bigint;
  status: PaymentStatus;
  checkout_url: string;
  success_url: string;
  cancel_url: string;
  refunded_usd_cents: number;
  refund_debited_credits: bigint;
  refund_shortfall_credits: bigint;
  expires_at: string;
  created_at: string;
  completed_at: string | null;
  closed_at: string | null;
  refunded_at: string | null;
}

export const CREDITS_PER_USD_CENT = 10_000n;
export const CHECKOUT_LIFETIME_MS = 30 * 60 * 1000;
export const MIN_CHECKOUT_CENTS = 500;
export const MAX_CHECKOUT_CENTS = 1_000_000;

export const paymentTypeOf = (processor: PaymentRow['processor']) =>
  processor === 'stripe' ? 'stripe_checkout' : 'local_checkout';

/** "25.00" from 2500 cents. */
export const formatUsdCents = (cents: number) =>
  `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export interface CheckoutInput {
  amountUsdCents: number;
  successUrl: string;
  cancelUrl: string;
}

export async function createCheckout(
  deps: AppDeps,
  processor: CardProcessor,
  accountId: string,
  input: CheckoutInput,
) {
  const paymentId = newId('pay');
  const credits = BigInt(input.amountUsdCents) * CREDITS_PER_USD_CENT;
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CHECKOUT_LIFETIME_MS);
  // The processor is asked first: if it fails nothing is stored; if our insert failed afterwards the
  // processor's session would simply expire unpaid (its events find no payment and are acknowledged).
  let checkout: CreatedCheckout;
  try {
    checkout = await processor.createCheckout({
      paymentId,
      accountId,
      amountUsdCents: input.amountUsdCents,
      credits,
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
      expiresAt,
    });
  } catch (err) {
    // The processor's own message stays in the log (cause), not in the answer.
    throw Object.assign(
      new AppError(
        'SVC-SYS-001',
        'The card processor could not open a checkout; nothing was charged, retry later',
      ),
      { cause: err },
    );
  }
  await deps.db.orm.execute(
    sql`INSERT INTO payments (id, account_id, processor, session_id, amount_usd_cents, credits, checkout_url,
                              success_url, cancel_url, expires_at, created_at)
        VALUES (${paymentId}, ${accountId}, ${processor.kind}, ${checkout.sessionId}, ${input.amountUsdCents},
                ${credits}, ${checkout.checkoutUrl}, ${input.successUrl}, ${input.cancelUrl},
                ${expiresAt.toISOString()}, ${now.toISOString()})`,
  );
  return {
    checkoutUrl: checkout.checkoutUrl,
    sessionId: checkout.sessionId,
    creditsToReceive: credits.toString(),
  };
}

export async function lockPayment(tx: Tx, paymentId: string): Promise<PaymentRow | undefined> {
  return one<PaymentRow>(tx, sql`SELECT * FROM payments WHERE id = ${paymentId} FOR UPDATE`);
}

export async function findPaymentBySession(tx: Tx, sessionId: string): Promise<PaymentRow | undefined> {
  return one<PaymentRow>(tx, sql`SELECT * FROM payments WHERE session_id = ${sessionId}`);
}

/**
 * pending | expired -> completed: one `deposit` entry keyed by the payment. An expired payment can still
 * complete because the processor only reports "paid" once money has moved; refusing it would keep the
 * customer's money without credits. Returns false when the payment was not in a completable state.
 */
export async function completePayment(
  tx: Tx,
  deps: AppDeps,
  paymentId: string,
  processorPaymentRef?: string,
): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  const p = await one<PaymentRow>(
    tx,
    sql`UPDATE payments SET status = 'completed', completed_at = ${now},
               processor_payment_ref = coalesce(${processorPaymentRef ?? null}, processor_payment_ref)
        WHERE id = ${paymentId} AND status IN ('pending', 'expired') RETURNING *`,
  );
  if (!p) return false;
  const entry = await postEntry(tx, {
    accountId: p.account_id,
    type: 'deposit',
    amountCredits: p.credits,
    idempotencyKey: `payment:${p.id}`,
    description: `Card top-up of ${formatUsdCents(p.amount_usd_cents)} USD`,
    referenceType: paymentTypeOf(p.processor),
    referenceId: p.id,
  });
  // Trust tiers count successful payments (docs/ratelimit.md).
  await countSuccessfulPayment(tx, p.account_id);
  await deps.hooks.run('payment.completed', tx, {
    accountId: p.account_id,
    paymentId: p.id,
    amountUsdCents: p.amount_usd_cents,
    credits: p.credits,
    newBalance: entry.balance_after,
  });
  if (p.processor_payment_ref) {
    // A refund reported before the completion (events arrive in any order) was parked by its PaymentIntent.
    await tx.execute(
      sql`UPDATE payments SET refunded_usd_cents = GREATEST(refunded_usd_cents, coalesce((
            SELECT max(refunded_usd_cents) FROM processor_events
            WHERE processor = ${p.processor} AND object_ref = ${p.processor_payment_ref}
              AND type = 'charge.refunded'), 0))
          WHERE id = ${p.id}`,
    );
  }
  await applyRefund(tx, deps, p.id);
  return true;
}

/** pending -> failed | expired. Returns false when the payment had already left `pending`. */
export async function closePayment(
  tx: Tx,
  deps: AppDeps,
  paymentId: string,
  to: 'failed' | 'expired',
): Promise<boolean> {
  const row = await one(
    tx,
    sql`UPDATE payments SET status = ${to}, closed_at = ${deps.clock.now().toISOString()}
        WHERE id = ${paymentId} AND status = 'pending' RETURNING id`,
  );
  return row !== undefined;
}

/**
 * Records the processor's cumulative refunded amount and applies it when the payment is completed (a
 * pending payment keeps it until it completes). Returns true when credits or a shortfall were recorded.
 */
export async function recordRefund(
  tx: Tx,
  deps: AppDeps,
  paymentId: string,
  refundedUsdCents: number,
): Promise<boolean> {
  await tx.execute(
    sql`UPDATE payments SET refunded_usd_cents = GREATEST(refunded_usd_cents, ${refundedUsdCents})
        WHERE id = ${paymentId}`,
  );
  return applyRefund(tx, deps, paymentId);
}

/**
 * completed -> refunded: takes back the credits of the refunded amount not yet taken, but never more than
 * the balance holds (credits may already be spent); what could not be taken is kept as a shortfall on
 * the payment. The entry's key carries the cumulative target, so a partial refund followed by a full one
 * writes one entry each and a replay writes none.
 */
async function applyRefund(tx: Tx, deps: AppDeps, paymentId: string): Promise<boolean> {
  const p = await lockPayment(tx, paymentId);
  if (!p || (p.status !== 'completed' && p.status !== 'refunded') || p.refunded_usd_cents === 0) return false;
  const refunded = BigInt(p.refunded_usd_cents) * CREDITS_PER_USD_CENT;
  const target = refunded < p.credits ? refunded : p.credits;
  const owed = target - p.refund_debited_credits - p.refund_shortfall_credits;
  if (owed <= 0n) return false;
  const account = await one<{ balance_credits: bigint }>(
    tx,
    sql`SELECT balance_credits FROM accounts WHERE id = ${p.account_id} FOR UPDATE`,
  );
  const balance = account?.balance_credits ?? 0n;
  const take = owed < balance ? owed : balance;
  if (take > 0n) {
    await postEntry(tx, {
      accountId: p.account_id,
      type: 'payment_refund',
      amountCredits: -take,
      idempotencyKey: `payment_refund:${p.id}:${target}`,
      description: `Card payment refunded (${formatUsdCents(p.refunded_usd_cents)} USD)`,
      referenceType: paymentTypeOf(p.processor),
      referenceId: p.id,
    });
    await deps.hooks.run('balance.decreased', tx, {
      accountId: p.account_id,
      balanceBefore: balance,
      balanceAfter: balance - take,
    });
  }
  await tx.execute(
    sql`UPDATE payments SET status = 'refunded',
               refunded_at = coalesce(refunded_at, ${deps.clock.now().toISOString()}),
               refund_debited_credits = refund_debited_credits + ${take},
               refund_shortfall_credits = refund_shortfall_credits + ${owed - take}
        WHERE id = ${p.id}`,
  );
  return true;
}

/** Background job: pending payments past their 30 minutes become `expired`. Safe on N instances. */
export async function expireStalePayments(deps: AppDeps): Promise<number> {
  const now = deps.clock.now().toISOString();
  const expired = await rows<{ id: string }>(
    deps.db.orm,
    sql`UPDATE payments SET status = 'expired', closed_at = ${now}
        WHERE id IN (SELECT id FROM payments WHERE status = 'pending' AND expires_at <= ${now}
                     ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED)
          AND status = 'pending'
        RETURNING id`,
  );
  return expired.length;
}

export function receiptUrl(deps: AppDeps, paymentId: string) {
  return `${deps.config.publicUrl}/receipts/${paymentId}`;
}

export function toPaymentView(deps: AppDeps, p: PaymentRow) {
  return {
    id: p.id,
    amountUsd: formatUsdCents(p.amount_usd_cents),
    creditsGranted: p.credits.toString(),
    status: p.status,
    receiptUrl: receiptUrl(deps, p.id),
    createdAt: toIso(p.created_at),
    completedAt: p.completed_at ? toIso(p.completed_at) : null,
  };
}

export async function listPayments(deps: AppDeps, accountId: string, page: number, limit: number) {
  const list = await rows<PaymentRow>(
    deps.db.orm,
    sql`SELECT * FROM payments WHERE account_id = ${accountId}
        ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
  );
  const count = await one<{ total: bigint }>(
    deps.db.orm,
    sql`SELECT count(*) AS total FROM payments WHERE account_id = ${accountId}`,
  );
  return {
    payments: list.map((p) => toPaymentView(deps, p)),
    pagination: { page, limit, total: Number(count?.total ?? 0n) },
  };
}
