// Refund of a call (live failure or swept after a crash): money back, outcome recorded and the
// auto-refund notification queued, all in one transaction.
import type { Executor } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { type CallResultRecord, type RefundReason, type RefundResult, refundCall } from '../ledger/index.js';

export type RefundRecord = CallResultRecord & { outcome: 'provider_error' | 'timeout'; reason: RefundReason };

export async function refundInTx(
  tx: Executor,
  deps: AppDeps,
  r: RefundRecord,
): Promise<RefundResult | undefined> {
  const refunded = await refundCall(tx, r);
  if (refunded) {
    await deps.hooks.run('call.refunded', tx, {
      accountId: refunded.accountId,
      callId: r.callId,
      providerId: refunded.providerId,
      endpointSlug: refunded.endpointSlug,
      credits: refunded.credits,
      reason: r.reason,
    });
  }
  return refunded;
}

export async function refundAndRecord(deps: AppDeps, r: RefundRecord): Promise<RefundResult | undefined> {
  const refunded = await deps.db.orm.transaction((tx) => refundInTx(tx, deps, r));
  if (refunded) {
    const { accountId, successfulPayments } = refunded;
    deps.events.emit('payments.counted', { accountId, successfulPayments });
  }
  return refunded;
}
