// The daily settlement at 02:00 UTC, exactly once across instances: every instance's job ticks each
// minute; past 02:00 the first to insert the day's `settlement_runs` row runs it (the primary key is the
// lock), the others see the row and do nothing. A run left unfinished by a crashed instance is taken over
// after its lease; running it again is harmless (calls already claimed are never claimed twice).
import type { AppDeps } from '../../deps.js';
import type { BackgroundJob } from '../../jobs/runner.js';
import { utcDay } from '../../lib/clock.js';
import { claimRun, finishRun } from './repo.js';
import { payPending, runSettlement } from './service.js';

/** The hour (UTC) of the daily run; it settles what was earned before 00:00 UTC that day. */
export const SETTLEMENT_HOUR_UTC = 2;
const RUN_LEASE_MS = 30 * 60_000;

/** 00:00 UTC of the day of `now`: the default end of a settlement period. */
export function lastMidnightUtc(now: Date): Date {
  return new Date(`${utcDay(now)}T00:00:00.000Z`);
}

/** The next daily run: today's 02:00 UTC if still ahead, else tomorrow's. */
export function nextSettlementAt(now: Date): Date {
  const today = new Date(lastMidnightUtc(now).getTime() + SETTLEMENT_HOUR_UTC * 3_600_000);
  return now < today ? today : new Date(today.getTime() + 24 * 3_600_000);
}

/** Runs today's settlement if it is due and no instance has; then retries the payouts still pending. */
export async function runDailySettlement(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const until = lastMidnightUtc(now);
  let made = 0;
  if (now.getTime() >= until.getTime() + SETTLEMENT_HOUR_UTC * 3_600_000) {
    const runDate = utcDay(now);
    if (await claimRun(deps.db.orm, { runDate, until, now, leaseMs: RUN_LEASE_MS })) {
      made = (await runSettlement(deps, until)).length;
      await finishRun(deps.db.orm, runDate, made, deps.clock.now());
    }
  }
  // A payout waiting for a payout wallet, a platform key or a reachable chain goes out soon after.
  return made + (await payPending(deps));
}

export const dailySettlementJob: BackgroundJob = {
  name: 'daily-settlement',
  intervalMs: 60_000,
  async run(deps) {
    if (!deps.config.payouts.job) return 0;
    return runDailySettlement(deps);
  },
};
