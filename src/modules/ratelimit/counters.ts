// Fixed-window request counters on rate-limiter-flexible: RateLimiterRedis on the shared ioredis client
// when REDIS_URL is set (counters shared by every instance), RateLimiterMemory otherwise.
//
// The library is used as an atomic counter store: its Redis script does SET NX EX + INCRBY + PTTL in one
// EVALSHA. The limit itself is decided by the caller (limiter.ts), because one identity's limit changes
// with its trust tier while its counter must carry on across the change.
//
// Counting on the hot path skips the library's per-call machinery: the counts asked for during one
// event-loop turn, by every request in it, go to Redis as one pipeline of the library's own script (same
// keys, same script), so a busy instance sends one write and reads one reply per turn instead of one per
// request (RedisCountBatcher below). Taking back and peeking still go through the library.
//
// Fail-open: when Redis is not connected or a command fails, the library falls back to a per-instance
// in-memory limiter (insuranceLimiter). Limits then hold per instance instead of globally; we log it.
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
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

/**
 * rate-limiter-flexible's counting script (RateLimiterRedis): start the window if there is none, count,
 * return the count and the window's remaining milliseconds. Copied so that our batched counts and the
 * library's own calls (refund, peek, the fallback) work on the same keys in the same way.
 */
const COUNT_SCRIPT = `redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}`;

interface PendingCount {
  key: string;
  resolve: (state: CounterState) => void;
  reject: (err: unknown) => void;
}

type CountingRedis = Redis & {
  svcRateCount(key: string, points: string, windowSeconds: string): Promise<[number, number]>;
};

/** Counts asked for in one event-loop turn, sent together as one pipeline when the turn ends. */
class RedisCountBatcher {
  private pending: PendingCount[] = [];
  private scheduled = false;
  private readonly window: string;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    windowSeconds: number,
  ) {
    this.window = String(windowSeconds);
    redis.defineCommand('svcRateCount', { numberOfKeys: 1, lua: COUNT_SCRIPT });
  }

  count(key: string): Promise<CounterState> {
    return new Promise((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After the I/O callbacks of this turn: every request parsed in it joins the pipeline.
      setImmediate(() => this.flush());
    });
  }

  private flush() {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    const pipeline = this.redis.pipeline() as unknown as CountingRedis & {
      exec(): Promise<[Error | null, unknown][] | null>;
    };
    for (const p of batch) pipeline.svcRateCount(`${this.keyPrefix}:${p.key}`, '1', this.window);
    pipeline.exec().then(
      (results) => {
        batch.forEach((p, i) => {
          const [err, reply] = results?.[i] ?? [new Error('no reply'), null];
          if (err) p.reject(err);
          else {
            const [consumed, ttl] = reply as [number | string, number];
            p.resolve({ consumed: Number(consumed), msBeforeReset: Math.max(0, Number(ttl)) });
          }
        });
      },
      (err: unknown) => {
        for (const p of batch) p.reject(err);
      },
    );
  }
}

export class Counters {
  private readonly store: RateLimiterAbstract;
  private readonly batcher: RedisCountBatcher | undefined;
  private readonly redis: Redis | undefined;

  constructor(deps: AppDeps, windowSeconds: number, log: FastifyBaseLogger) {
    const keyPrefix = `${deps.redisPrefix}rl`;
    this.redis = deps.redis;
    this.batcher = deps.redis ? new RedisCountBatcher(deps.redis, keyPrefix, windowSeconds) : undefined;
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
   * Counts one request on every key: with Redis, in the pipeline of this event-loop turn (one round trip
   * for every request of the turn); otherwise (or when Redis is not ready) through the library.
   */
  async consume(keys: readonly string[]): Promise<CounterState[]> {
    const batcher = this.batcher;
    if (batcher && this.redis?.status === 'ready') {
      try {
        return await Promise.all(keys.map((key) => batcher.count(key)));
      } catch {
        // A failed command: count through the library, which falls back to its in-memory limiter.
      }
    }
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
