// Debits without a balance alert (the hot path) go through here. An account with no debit in flight gets
// the single prepared statement at once; calls of an account that arrive while its debit is in flight wait
// and are then debited together in one statement (debitBatchForAccount), so a busy account pays one WAL
// flush per batch instead of one per call. Calls with an Idempotency-Key always go alone (a reused key
// must fail only its own statement). Whatever a batch does not debit is retried alone by the caller.
import type { Database } from '../../db/index.js';
import { debitBatchForAccount } from '../ledger/batch-debit.js';
import { type DebitForCallInput, type DebitResult, debitForCallQuick } from '../ledger/calls.js';

const MAX_BATCH = 64;

interface Waiting {
  input: DebitForCallInput;
  resolve: (r: DebitResult | undefined) => void;
  reject: (err: unknown) => void;
}

export class DebitCoalescer {
  /** Accounts with a debit in flight, and the calls waiting behind it. */
  private readonly busy = new Map<string, Waiting[]>();

  constructor(private readonly db: Database) {}

  /** undefined = not debited without an alert: take the transactional path (which also explains refusals). */
  async debit(input: DebitForCallInput): Promise<DebitResult | undefined> {
    if (input.idempotencyKey !== null) return debitForCallQuick(this.db, input);
    const queue = this.busy.get(input.accountId);
    if (queue) {
      return new Promise((resolve, reject) => queue.push({ input, resolve, reject }));
    }
    this.busy.set(input.accountId, []);
    try {
      return await debitForCallQuick(this.db, input);
    } finally {
      void this.drain(input.accountId);
    }
  }

  private async drain(accountId: string) {
    for (;;) {
      const queue = this.busy.get(accountId);
      if (!queue || queue.length === 0) {
        this.busy.delete(accountId);
        return;
      }
      const batch = queue.splice(0, MAX_BATCH);
      if (batch.length === 1) {
        const [only] = batch as [Waiting];
        await debitForCallQuick(this.db, only.input).then(only.resolve, only.reject);
        continue;
      }
      try {
        const results = await debitBatchForAccount(
          this.db.orm,
          accountId,
          batch.map((w) => w.input),
          new Date(Math.max(...batch.map((w) => w.input.now.getTime()))),
        );
        batch.forEach((w, i) => {
          w.resolve(results[i]);
        });
      } catch {
        // The batch wrote nothing (one statement): let each call take the path it would have taken alone.
        for (const w of batch) w.resolve(undefined);
      }
    }
  }
}
