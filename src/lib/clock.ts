/** Injectable time source so tests can move time (cooldowns, expiry, UTC day boundaries). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  constructor(private current = new Date()) {}
  now() {
    return new Date(this.current);
  }
  set(date: Date) {
    this.current = new Date(date);
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** The UTC calendar day of an instant, `YYYY-MM-DD`: the unit of daily limits, usage days and digests. */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);
