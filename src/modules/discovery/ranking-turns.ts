// Rankings take turns with the rest of the process. A ranking is synchronous CPU work (2 ms at 10,000
// endpoints, 20–50 ms at 100,000), and every request whose ranking was ready in the same event-loop
// turn used to run back to back: a database reply that arrived meanwhile (an admin write, a paid call's
// debit, the index's own catalogue sync) waited for all of them. Here each ranking waits for its own
// turn, one per event-loop iteration (a `setImmediate`), so the I/O that became ready during a ranking
// is handled before the next one starts. Rankings still run one after another in arrival order: on the
// same core their own latency does not change, only what else they hold up.

export class RankingTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves when this caller may rank: after the rankings queued before it, one per loop turn. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Callers waiting for a turn (the one being released included until its ranking starts). */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule() {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(this.release);
  }

  // The released caller ranks in the microtasks that follow this callback; the next release is a new
  // `setImmediate`, which Node runs in the next loop iteration, after the poll phase has run the I/O
  // callbacks that became ready during this ranking.
  private readonly release = () => {
    this.scheduled = false;
    this.waiting.shift()?.();
    this.schedule();
  };
}
