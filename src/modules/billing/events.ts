// Applies one processor event (a verified Stripe webhook, or a button on the local checkout page) to the
// payment state machine, exactly once: the event id is inserted first under a unique key in the same
// transaction, so a second delivery (even a concurrent one) finds it and changes nothing.
import { sql } from 'drizzle-orm';
import { one, type Tx } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import {
  closePayment,
  completePayment,
  findPaymentBySession,
  lockPayment,
  type PaymentRow,
  recordRefund,
} from './payments.js';

export type PaymentEffect =
  | { kind: 'completed'; processorPaymentRef?: string | undefined }
  | { kind: 'failed' }
  | { kind: 'expired' }
  | { kind: 'refunded'; refundedUsdCents: number; processorPaymentRef?: string | undefined }
  /** Acknowledged and recorded, no effect (event types we do not act on, unpaid completions). */
  | { kind: 'none'; reason: string };

export interface ProcessorEvent {
  processor: 'local' | 'stripe';
  eventId: string;
  type: string;
  /** How to find the payment: by checkout session, or by our payment id (processor metadata). */
  sessionId?: string | undefined;
  paymentId?: string | undefined;
  effect: PaymentEffect;
}

export type EventOutcome = 'duplicate' | 'applied' | 'no_change' | 'deferred' | 'unknown_payment' | 'ignored';

export async function applyProcessorEvent(deps: AppDeps, ev: ProcessorEvent): Promise<EventOutcome> {
  let completedAccount: string | undefined;
  const outcome = await deps.db.orm.transaction(async (tx) => {
    const ref = 'processorPaymentRef' in ev.effect ? ev.effect.processorPaymentRef : undefined;
    const inserted = await one(
      tx,
      sql`INSERT INTO processor_events (processor, event_id, type, object_ref, refunded_usd_cents, outcome)
          VALUES (${ev.processor}, ${ev.eventId}, ${ev.type}, ${ref ?? null},
                  ${ev.effect.kind === 'refunded' ? ev.effect.refundedUsdCents : null}, 'received')
          ON CONFLICT (processor, event_id) DO NOTHING RETURNING event_id`,
    );
    if (!inserted) return 'duplicate';
    // A refund and the completion of the same PaymentIntent serialise here, so a refund that arrives
    // while the completion is being applied is never parked after the completion looked for it.
    if (ref) await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`payref:${ref}`}))`);
    const payment = await findPayment(tx, ev, ref);
    const result = payment ? await applyEffect(tx, deps, payment, ev.effect) : unmatchedOutcome(ev.effect);
    await tx.execute(
      sql`UPDATE processor_events SET outcome = ${result}, payment_id = ${payment?.id ?? null}
          WHERE processor = ${ev.processor} AND event_id = ${ev.eventId}`,
    );
    if (result === 'applied' && ev.effect.kind === 'completed') completedAccount = payment?.account_id;
    return result;
  });
  // A completed payment raised the trust-tier counter: the next request sees the new tier.
  if (completedAccount) deps.events.emit('payments.counted', { accountId: completedAccount });
  return outcome;
}

async function findPayment(tx: Tx, ev: ProcessorEvent, ref: string | undefined) {
  let found: PaymentRow | undefined;
  if (ev.sessionId) found = await findPaymentBySession(tx, ev.sessionId);
  if (!found && ev.paymentId)
    found = await one<PaymentRow>(tx, sql`SELECT * FROM payments WHERE id = ${ev.paymentId}`);
  if (!found && ref && ev.effect.kind === 'refunded') {
    found = await one<PaymentRow>(tx, sql`SELECT * FROM payments WHERE processor_payment_ref = ${ref}`);
  }
  // Only our own processor's payments: a local session id can never be settled by a Stripe event.
  if (!found || found.processor !== ev.processor) return undefined;
  return lockPayment(tx, found.id);
}

function unmatchedOutcome(effect: PaymentEffect): EventOutcome {
  if (effect.kind === 'none') return 'ignored';
  // Kept with its PaymentIntent and refunded amount; the completion applies it (completePayment).
  if (effect.kind === 'refunded' && effect.processorPaymentRef) return 'deferred';
  return 'unknown_payment';
}

async function applyEffect(
  tx: Tx,
  deps: AppDeps,
  p: PaymentRow,
  effect: PaymentEffect,
): Promise<EventOutcome> {
  let changed: boolean;
  switch (effect.kind) {
    case 'completed':
      changed = await completePayment(tx, deps, p.id, effect.processorPaymentRef);
      break;
    case 'failed':
    case 'expired':
      changed = await closePayment(tx, deps, p.id, effect.kind);
      break;
    case 'refunded':
      changed = await recordRefund(tx, deps, p.id, effect.refundedUsdCents);
      // Recorded on a payment not completed yet: it applies at completion.
      if (!changed && p.status === 'pending') return 'deferred';
      break;
    case 'none':
      return 'ignored';
  }
  return changed ? 'applied' : 'no_change';
}
