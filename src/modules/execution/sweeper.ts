// Crash safety: a call debited by an instance that died before recording the outcome stays `pending`.
// Once its deadline plus a margin has passed, this job refunds it (outcome `timeout`, reason
// `abandoned`). A call whose answer was given but whose outcome could not be written is not abandoned:
// its outcome waits in `call_outcome_backlog`, and this job records it instead (outcome-backlog.ts). One call per transaction, claimed with FOR UPDATE SKIP LOCKED, so N instances sweep
// side by side; the refund's ledger key `refund:<callId>` makes it exactly once in any case.
import { sql } from 'drizzle-orm';
import { one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { errorBody } from '../../errors/catalogue.js';
import type { BackgroundJob } from '../../jobs/runner.js';
import { recordKeptOutcomes } from './outcome-backlog.js';
import { refundInTx } from './refund.js';

/** Grace after a call's deadline before it counts as abandoned (a live instance settles well before). */
export const SWEEP_MARGIN_MS = 30_000;
const MAX_PER_RUN = 200;

/**
 * Records the kept outcomes, then refunds the abandoned calls; returns how many were refunded. A failure
 * to record the kept outcomes does not hold back the refunds (it is thrown after them, for the job's log).
 */
export async function sweepAbandonedCalls(deps: AppDeps, marginMs = SWEEP_MARGIN_MS): Promise<number> {
  let keptOutcomesError: unknown;
  try {
    await recordKeptOutcomes(deps.db);
  } catch (err) {
    keptOutcomesError = err;
  }
  const refunded = await refundAbandonedCalls(deps, marginMs);
  if (keptOutcomesError) throw keptOutcomesError;
  return refunded;
}

async function refundAbandonedCalls(deps: AppDeps, marginMs: number): Promise<number> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - marginMs).toISOString();
  let refunded = 0;
  for (let i = 0; i < MAX_PER_RUN; i++) {
    const done = await deps.db.orm.transaction(async (tx) => {
      const call = await one<{ id: string }>(
        tx,
        sql`SELECT id FROM calls c WHERE status = 'pending' AND deadline_at < ${cutoff}
              AND NOT EXISTS (SELECT 1 FROM call_outcome_backlog b WHERE b.call_id = c.id)
            ORDER BY deadline_at LIMIT 1 FOR UPDATE OF c SKIP LOCKED`,
      );
      if (!call) return null;
      const details = { call_id: call.id, reason: 'abandoned' };
      return refundInTx(tx, deps, {
        callId: call.id,
        outcome: 'timeout',
        reason: 'abandoned',
        providerStatus: null,
        latencyMs: null,
        finishedAt: now,
        // What an Idempotency-Key replay of this call answers: the outcome it never got to send.
        responseStatus: 504,
        responseBody: JSON.stringify(
          errorBody('SVC-EXE-005', 'The call did not complete; it was refunded', details),
        ),
      });
    });
    if (done === null) break;
    if (done) {
      deps.events.emit('payments.counted', {
        accountId: done.accountId,
        successfulPayments: done.successfulPayments,
      });
    }
    refunded++;
  }
  return refunded;
}

export const sweepAbandonedCallsJob: BackgroundJob = {
  name: 'execution.sweep-abandoned-calls',
  intervalMs: 5_000,
  run: (deps) => sweepAbandonedCalls(deps),
};
