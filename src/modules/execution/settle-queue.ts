// Group commit for charged calls: outcomes that arrive while a write is in flight are written together in
// the next one (one statement, one commit for many calls). Each request still waits until its own outcome
// is durable before answering, so nothing is acknowledged that a crash could lose; a crash before the
// write leaves the call pending and the sweeper refunds it (the caller never got an answer).
import type { Database } from '../../db/index.js';
import { isRetryable } from '../../db/index.js';
import { type CallResultRecord, settleChargedCalls } from '../ledger/calls.js';

const MAX_BATCH = 500;
const MAX_ATTEMPTS = 5;

interface Pending {
  record: CallResultRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class SettleQueue {
  private queue: Pending[] = [];
  private writing = false;
  private scheduled = false;

  constructor(private readonly db: Database) {}

  /** Resolves once the outcome is committed. */
  settle(record: CallResultRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.writing || this.scheduled) return;
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
      await this.writeWithRetry(batch.map((p) => p.record));
      for (const p of batch) p.resolve();
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async writeWithRetry(records: CallResultRecord[]) {
    for (let attempt = 1; ; attempt++) {
      try {
        // Two instances' batches may lock the same accounts in different orders: PostgreSQL then
        // aborts one (40P01) and, since the statement is all or nothing, it simply runs again.
        await settleChargedCalls(this.db.orm, records);
        return;
      } catch (err) {
        if (!isRetryable(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  /** Waits for everything queued so far to be written (shutdown). */
  async drain() {
    while (this.queue.length > 0 || this.writing) {
      if (!this.writing) await this.writeBatch();
      else await new Promise((r) => setTimeout(r, 2));
    }
  }
}
