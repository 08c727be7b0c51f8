// Fixed-window request counters on rate-limiter-flexible: RateLimiterRedis on the shared ioredis client
// when REDIS_URL is set (counters shared by every instance), RateLimiterMemory otherwise.
//
// The library is used as an atomic counter store: its Redis script does SET NX EX + INCRBY + PTTL in one
// EVALSHA. The limit itself is decided by the caller (limiter.ts), because one identity's limit changes
// with its trust tier while its counter must carry on across the change.
//
// Fail-open: when Redis is not connected or a command fails, the library falls back to a per-instance
// in-memory limiter (insuranceLimiter). Limits then hold per instance instead of globally; we log it.
import type { FastifyBaseLogger } from 'fastify';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import type { AppDeps } from '../../deps.js';

export interface CounterState {
  consumed: number;
  /** Milliseconds until this counter's window ends. */
  msBeforeReset: number;
}

/** The library refuses on `points`; we never want it to, so it only counts. */
const COUNT_ONLY_POINTS = 2 ** 31 - 1;
/** At most one "Redis unreachable" warning per this many milliseconds. */
const FALLBACK_LOG_INTERVAL_MS = 60_000;

/** The insurance limiter, which says so in the log when it is put to use. */
class FallbackMemoryLimiter extends RateLimiterMemory {
  private lastLoggedAt = 0;

  constructor(
    opts: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly log: FastifyBaseLogger,
  ) {
    super(opts);
  }

  private noteUse() {
    const now = Date.now();
    if (now - this.lastLoggedAt < FALLBACK_LOG_INTERVAL_MS) return;
    this.lastLoggedAt = now;
    this.log.warn('Redis unreachable: rate limits fall back to per-instance memory counters (fail-open)');
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>) {
    this.noteUse();
    return super.consume(...args);
  }

  override reward(...args: Parameters<RateLimiterMemory['reward']>) {
    this.noteUse();
    return super.reward(...args);
  }

  override get(...args: Parameters<RateLimiterMemory['get']>) {
    this.noteUse();
    return super.get(...args);
  }
}

export class Counters {
  private readonly store: RateLimiterAbstract;

  constructor(deps: AppDeps, windowSeconds: number, log: FastifyBaseLogger) {
    const keyPrefix = `${deps.redisPrefix}rl`;
    const opts = { keyPrefix, points: COUNT_ONLY_POINTS, duration: windowSeconds };
    this.store = deps.redis
      ? new RateLimiterRedis({
          ...opts,
          storeClient: deps.redis,
          // Don't queue behind a reconnecting client: go to the insurance limiter at once.
          rejectIfRedisNotReady: true,
          insuranceLimiter: new FallbackMemoryLimiter(opts, log),
        })
      : new RateLimiterMemory(opts);
  }

  /**
   * Counts one request on every key. The commands are issued together, so with Redis they travel in one
   * round trip (ioredis writes each at once without waiting for the previous reply).
   */
  async consume(keys: readonly string[]): Promise<CounterState[]> {
    const results = await Promise.all(keys.map((key) => this.store.consume(key, 1)));
    return results.map(toState);
  }

  /** Takes one request back (a refused request must not use up the budget of the limits it passed). */
  async refund(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.store.reward(key, 1)));
  }

  /** Current state without counting (for /v1/auth/status on a request that was not counted). */
  async peek(key: string): Promise<CounterState | undefined> {
    const res = await this.store.get(key);
    return res ? toState(res) : undefined;
  }
}

function toState(res: RateLimiterRes): CounterState {
  return { consumed: res.consumedPoints, msBeforeReset: Math.max(0, res.msBeforeNext) };
}
