// Group commit for the outcomes of charged calls (2xx, 4xx). The money moved with the debit, before the
// provider was called; the outcome row is bookkeeping (status, provider status, latency), so it is written
// after the answer, together with the outcomes of other calls: one writer, one statement and one commit
// for everything queued while the previous write ran. That keeps the paid hot path at one transaction
// per call (the debit) and takes a database round trip off every answer.
//
// What can go wrong, and why no money is at risk:
// - The process dies before the write: the call stays `pending` and the sweeper refunds it after its
//   deadline plus the margin. The customer got the answer and is not charged; never charged twice.
// - The write keeps failing (about 6 s of retries): each outcome is then tried alone, so one row the
//   statement refuses cannot hold back the others, and an outcome that still cannot be written is kept in
//   `call_outcome_backlog` (outcome-backlog.ts): the sweeper records it there instead of refunding an
//   answered call. While even that fails (database unreachable) the outcomes wait in memory and are
//   tried again every PARKED_RETRY_MS; only if the process dies meanwhile are they refunded as abandoned.
// - A call the sweeper already refunded is left alone (the write only touches calls still pending).
// Calls with an Idempotency-Key wait for their write (`settle`), so a retry always finds the stored answer.
// Views that show pending calls (wallet balance, usage export) first wait for what this instance has
// queued (`flush`), so a caller reads its own calls as settled.
import type { FastifyBaseLogger } from 'fastify';
import { type Database, isDatabaseUnavailable } from '../../db/index.js';
import { type CallResultRecord, settleChargedCalls } from '../ledger/index.js';
import { keepOutcomes } from './outcome-backlog.js';

const MAX_BATCH = 1000;
/** Attempts per batch, with doubling pauses from RETRY_BASE_MS (about 6 s in all). */
const MAX_ATTEMPTS = 7;
const RETRY_BASE_MS = 100;
/** Outcomes held in memory while the database cannot take even the backlog; beyond this the oldest go. */
const MAX_PARKED = 100_000;
const PARKED_RETRY_MS = 5_000;

interface Queued {
  record: CallResultRecord;
  /** Set for callers that wait for the write. */
  done?: { resolve: () => void; reject: (err: unknown) => void };
}

export class SettleQueue {
  private queue: Queued[] = [];
  private writing = false;
  private scheduled = false;
  /** Records handed over so far, and records whose write has finished (written or given up on). */
  private queuedCount = 0;
  private finishedCount = 0;
  private flushWaiters: { until: number; resolve: () => void }[] = [];
  /** Outcomes that could be written neither on their calls nor in the backlog (database unreachable). */
  private parked: CallResultRecord[] = [];
  private parkedTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
  ) {}

  /** Queues the outcome; it is written with the next batch. */
  record(record: CallResultRecord): void {
    this.enqueue({ record });
  }

  /** Queues the outcome and resolves once it is committed (rejects if it could not be written). */
  settle(record: CallResultRecord): Promise<void> {
    return new Promise((resolve, reject) => this.enqueue({ record, done: { resolve, reject } }));
  }

  /** Resolves once every outcome queued before this call has been written (or given up on). */
  flush(): Promise<void> {
    if (this.finishedCount >= this.queuedCount) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push({ until: this.queuedCount, resolve }));
  }

  private enqueue(q: Queued) {
    this.queue.push(q);
    this.queuedCount++;
    this.schedule();
  }

  private schedule() {
    if (this.scheduled || this.writing || this.queue.length === 0) return;
    this.scheduled = true;
    // Let the outcomes of this event-loop turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.writeBatch();
    });
  }

  private async writeBatch() {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      await this.writeWithRetry(batch.map((q) => q.record));
      for (const q of batch) q.done?.resolve();
    } catch (err) {
      await this.writeOneByOne(batch, err);
    } finally {
      this.finishedCount += batch.length;
      this.writing = false;
      this.wakeFlushWaiters();
      this.schedule();
    }
  }

  /**
   * After the group write failed for good: each outcome alone, then the backlog, then memory. Callers
   * waiting for their write (Idempotency-Key) learn whether their own outcome reached the call row.
   */
  private async writeOneByOne(batch: Queued[], batchError: unknown) {
    // With the database unreachable each outcome alone would only fail again, once per outcome.
    const unwritten = isDatabaseUnavailable(batchError)
      ? batch.map((q) => {
          q.done?.reject(batchError);
          return q.record;
        })
      : await this.settleEach(batch);
    if (unwritten.length === 0) return;
    const callIds = unwritten.slice(0, 5).map((r) => r.callId);
    try {
      await keepOutcomes(this.db.orm, unwritten);
      this.log.error(
        { err: batchError, calls: unwritten.length, callIds },
        'call outcomes could not be written; kept in call_outcome_backlog, the sweeper records them',
      );
    } catch (err) {
      this.park(unwritten);
      this.log.error(
        { err, calls: unwritten.length, callIds },
        'call outcomes could not be written or kept; retrying every few seconds while this process runs',
      );
    }
  }

  /** Settles each outcome in its own statement; returns those that still failed. */
  private async settleEach(batch: Queued[]): Promise<CallResultRecord[]> {
    const failed: CallResultRecord[] = [];
    for (const q of batch) {
      try {
        await settleChargedCalls(this.db, [q.record]);
        q.done?.resolve();
      } catch (err) {
        q.done?.reject(err);
        failed.push(q.record);
      }
    }
    return failed;
  }

  private park(records: CallResultRecord[]) {
    this.parked.push(...records);
    const excess = this.parked.length - MAX_PARKED;
    if (excess > 0) {
      const dropped = this.parked.splice(0, excess);
      this.log.error(
        { calls: dropped.length, callIds: dropped.slice(0, 5).map((r) => r.callId) },
        'too many unwritten call outcomes; the oldest are dropped and the sweeper will refund those calls',
      );
    }
    if (this.parkedTimer) return;
    this.parkedTimer = setTimeout(() => {
      this.parkedTimer = undefined;
      for (const record of this.parked.splice(0)) this.record(record);
    }, PARKED_RETRY_MS);
    this.parkedTimer.unref();
  }

  /** Writes what is queued; outcomes still held in memory get one last try into the backlog. */
  async close(): Promise<void> {
    await this.flush();
    if (this.parkedTimer) clearTimeout(this.parkedTimer);
    this.parkedTimer = undefined;
    const parked = this.parked.splice(0);
    if (parked.length === 0) return;
    try {
      await keepOutcomes(this.db.orm, parked);
    } catch (err) {
      this.log.error(
        { err, calls: parked.length },
        'call outcomes lost at shutdown; the sweeper will refund them',
      );
    }
  }

  private wakeFlushWaiters() {
    if (this.flushWaiters.length === 0) return;
    const still: typeof this.flushWaiters = [];
    for (const w of this.flushWaiters) {
      if (w.until <= this.finishedCount) w.resolve();
      else still.push(w);
    }
    this.flushWaiters = still;
  }

  private async writeWithRetry(records: CallResultRecord[]) {
    for (let attempt = 1; ; attempt++) {
      try {
        await settleChargedCalls(this.db, records);
        return;
      } catch (err) {
        // The statement is all or nothing and only touches calls still pending: always safe to repeat.
        if (attempt >= MAX_ATTEMPTS) throw err;
        if (attempt === 1)
          this.log.warn({ err, calls: records.length }, 'call outcome write failed; retrying');
        await new Promise((r) => setTimeout(r, RETRY_BASE_MS * 2 ** (attempt - 1)));
      }
    }
  }
}
