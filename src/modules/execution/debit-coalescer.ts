// Debits without a balance alert (the hot path) go through here, grouped two ways:
// - Calls of one account that arrive while its debit is in flight wait and are then debited together in
//   one statement (debitBatchForAccount), so a busy account pays one WAL flush per batch, not per call.
// - An account's first call goes out at once while no other such statement is in flight (so a lone call
//   never waits); otherwise it waits and leaves with the others that arrived meanwhile, one statement and
//   one commit for up to MAX_GROUP different accounts (debitAcrossAccounts: group commit across accounts).
// Calls with an Idempotency-Key always go alone (a reused key must fail only its own statement). Whatever
// a batch does not debit, or a batch that fails as a whole, is retried alone by the caller.
import type { Database } from '../../db/index.js';
import {
  type DebitForCallInput,
  type DebitResult,
  debitAcrossAccounts,
  debitBatchForAccount,
  debitForCallQuick,
} from '../ledger/index.js';

const MAX_BATCH = 64;
/**
 * First-call debit statements in flight at once. One: the WAL flush (~1–2 ms under load here) dominates a
 * statement, so the fewer statements, the more calls share each flush. Measured over 1,000 accounts at
 * c=64 (docs/execution.md): 1 → ~4,000/s, 2 → ~3,950/s, 4 → ~3,400/s, 8 → ~2,900/s.
 */
const MAX_STATEMENTS = 1;
/** Accounts per grouped statement (a group holds what arrived during one statement). */
const MAX_GROUP = 256;

interface Waiting {
  input: DebitForCallInput;
  resolve: (r: DebitResult | undefined) => void;
  reject: (err: unknown) => void;
}

export class DebitCoalescer {
  /** Accounts with a debit in flight, and the calls waiting behind it. */
  private readonly busy = new Map<string, Waiting[]>();
  /** First calls of accounts waiting for a statement slot (distinct accounts: each is marked busy). */
  private group: Waiting[] = [];
  private inFlight = 0;

  /** `onStatement(n)`: one debit statement carried n calls (the batch-size counter of /metrics). */
  constructor(
    private readonly db: Database,
    private readonly onStatement: (size: number) => void = () => {},
  ) {}

  /** undefined = not debited without an alert: take the transactional path (which also explains refusals). */
  async debit(input: DebitForCallInput): Promise<DebitResult | undefined> {
    if (input.idempotencyKey !== null) {
      this.onStatement(1);
      return debitForCallQuick(this.db, input);
    }
    const queue = this.busy.get(input.accountId);
    if (queue) {
      return new Promise((resolve, reject) => queue.push({ input, resolve, reject }));
    }
    this.busy.set(input.accountId, []);
    try {
      return await this.firstOfAccount(input);
    } finally {
      void this.drain(input.accountId);
    }
  }

  /** An account's first call: alone if a statement slot is free, else with the next group. */
  private firstOfAccount(input: DebitForCallInput): Promise<DebitResult | undefined> {
    return new Promise((resolve, reject) => {
      this.group.push({ input, resolve, reject });
      this.flushGroups();
    });
  }

  private flushGroups() {
    while (this.inFlight < MAX_STATEMENTS && this.group.length > 0) {
      const batch = this.group.splice(0, MAX_GROUP);
      this.inFlight++;
      void this.runGroup(batch).finally(() => {
        this.inFlight--;
        this.flushGroups();
      });
    }
  }

  private async runGroup(batch: Waiting[]) {
    this.onStatement(batch.length);
    if (batch.length === 1) {
      const [only] = batch as [Waiting];
      await debitForCallQuick(this.db, only.input).then(only.resolve, only.reject);
      return;
    }
    try {
      const results = await debitAcrossAccounts(
        this.db,
        batch.map((w) => w.input),
      );
      batch.forEach((w, i) => {
        w.resolve(results[i]);
      });
    } catch {
      // The statement wrote nothing: let each call take the path it would have taken alone.
      for (const w of batch) w.resolve(undefined);
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
      this.onStatement(batch.length);
      if (batch.length === 1) {
        const [only] = batch as [Waiting];
        await debitForCallQuick(this.db, only.input).then(only.resolve, only.reject);
        continue;
      }
      try {
        const results = await debitBatchForAccount(
          this.db,
          accountId,
          batch.map((w) => w.input),
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
