// Group commit for charged calls: outcomes that arrive in the same event-loop turn, or while the
// writers are busy, are written together (one statement, one commit for many calls). A request answers
// only once its outcome is written, so whatever the caller saw is what billing, usage and the wallet
// show next. The money is already settled by the debit; a crash before this write leaves the call pending
// and the sweeper refunds it (see settleChargedCalls for the commit mode).
import type { Database } from '../../db/index.js';
import { isRetryable } from '../../db/index.js';
import { type CallResultRecord, settleChargedCalls } from '../ledger/calls.js';

const MAX_BATCH = 500;
/** Writes in flight at once: they touch disjoint call rows only, so they never wait on each other. */
const MAX_WRITERS = 4;
const MAX_ATTEMPTS = 5;

interface Pending {
  record: CallResultRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class SettleQueue {
  private queue: Pending[] = [];
  private writers = 0;
  private scheduled = false;

  constructor(private readonly db: Database) {}

  /** Resolves once the outcome is written. */
  settle(record: CallResultRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled || this.writers >= MAX_WRITERS) return;
    this.scheduled = true;
    // Let the outcomes of this event-loop turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.writeBatch();
    });
  }

  private async writeBatch() {
    if (this.writers >= MAX_WRITERS || this.queue.length === 0) return;
    this.writers++;
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      await this.writeWithRetry(batch.map((p) => p.record));
      for (const p of batch) p.resolve();
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.writers--;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async writeWithRetry(records: CallResultRecord[]) {
    for (let attempt = 1; ; attempt++) {
      try {
        await settleChargedCalls(this.db.orm, records);
        return;
      } catch (err) {
        // Serialization failures are not expected (disjoint rows) but are harmless to retry: the
        // statement is all or nothing and only touches calls still pending.
        if (!isRetryable(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  /** Waits for everything queued so far to be written (shutdown). */
  async drain() {
    while (this.queue.length > 0 || this.writers > 0) {
      if (this.queue.length > 0 && this.writers < MAX_WRITERS) await this.writeBatch();
      else await new Promise((r) => setTimeout(r, 2));
    }
  }
}
