// Decides whether a request may pass: the identity-tier limit (docs/ratelimit.md), the per-IP cap on
// unsigned wallet claims, and the endpoint-specific limit (docs/ratelimit.md), all counted in one round trip.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { Caller } from '../auth/index.js';
import { type CounterState, Counters } from './counters.js';
import { type EffectiveLimits, effectiveLimits } from './limits.js';
import type { TrustTier } from './status.js';
import { TrustTierCache } from './trust-tier.js';

export type LimitScope = 'ip' | 'wallet' | 'wallet_ip' | 'account' | 'endpoint';

export interface Identity {
  tier: 'anonymous' | 'wallet_identified' | 'authenticated';
  trustTier: TrustTier | null;
  scope: Exclude<LimitScope, 'wallet_ip' | 'endpoint'>;
  /** Counter key of the identity; endpoint counters are scoped by it too. */
  key: string;
  limit: number;
}

interface Check {
  scope: LimitScope;
  key: string;
  limit: number;
}

export interface LimitState {
  scope: LimitScope;
  limit: number;
  remaining: number;
  /** Unix seconds at which the window of this limit ends. */
  reset: number;
  msBeforeReset: number;
}

export interface Decision {
  allowed: boolean;
  identity: Identity;
  /** The identity-tier limit, whatever else was checked (what /v1/auth/status reports). */
  identityState: LimitState;
  /** The limit nearest to exhaustion; when refused, the refusing limit with the longest wait. */
  reported: LimitState;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The limiter's decision on this request, for rateLimitStatus (no second count). A request
     * property (decorated in plugin.ts) rather than a WeakMap entry per request: those cost every GC.
     */
    rateLimitDecision: Decision | null;
  }
}

export function rememberDecision(request: FastifyRequest, decision: Decision): void {
  request.rateLimitDecision = decision;
}

export function decisionFor(request: FastifyRequest): Decision | undefined {
  return request.rateLimitDecision ?? undefined;
}

export class RateLimiter {
  readonly limits: EffectiveLimits;
  readonly tiers: TrustTierCache;
  private readonly counters: Counters;

  constructor(
    private readonly deps: AppDeps,
    private readonly log: FastifyBaseLogger,
  ) {
    this.limits = effectiveLimits(deps.config);
    this.tiers = new TrustTierCache(deps, this.limits, log);
    this.counters = new Counters(deps, this.limits.windowSeconds, log);
  }

  /** Waits (briefly) for Redis so the first requests count globally rather than in the fallback. */
  async start(): Promise<void> {
    this.tiers.open();
    const redis = this.deps.redis;
    if (!redis || redis.status === 'ready') return;
    const ready = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 2000);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!(await ready))
      this.log.warn('Redis not ready at start; rate limits use per-instance counters until it is');
  }

  stop(): void {
    this.tiers.close();
  }

  async identify(caller: Caller): Promise<Identity> {
    const anonymous: Identity = {
      tier: 'anonymous',
      trustTier: null,
      scope: 'ip',
      key: `ip:${caller.ip}`,
      limit: this.limits.anonymous,
    };
    switch (caller.kind) {
      case 'anonymous':
      case 'invalid':
        // Bad credentials are counted per IP: guessing keys must not earn a fresh budget.
        return anonymous;
      case 'wallet': {
        const trustTier = await this.tiers.forWallet(caller.wallet);
        return {
          tier: 'wallet_identified',
          trustTier,
          scope: 'wallet',
          // Unsigned claim: wallet + IP, so a forged header cannot spend the real wallet's budget.
          key: `wallet:${caller.wallet}:${caller.ip}`,
          limit: this.limits.wallet[trustTier],
        };
      }
      case 'account': {
        const trustTier = await this.tiers.forAccount(caller.accountId);
        return {
          tier: 'authenticated',
          trustTier,
          scope: 'account',
          key: `account:${caller.accountId}`,
          limit: Math.max(this.limits.account, this.limits.wallet[trustTier]),
        };
      }
    }
  }

  /** Counts the request against every limit that applies; a refused request is taken back from all. */
  async check(caller: Caller, routeKey: string | undefined): Promise<Decision> {
    const identity = await this.identify(caller);
    const checks: Check[] = [{ scope: identity.scope, key: identity.key, limit: identity.limit }];
    if (caller.kind === 'wallet') {
      checks.push({ scope: 'wallet_ip', key: `wallet-ip:${caller.ip}`, limit: this.limits.walletPerIp });
    }
    const endpointLimit = routeKey ? this.limits.endpoints.get(routeKey) : undefined;
    if (routeKey && endpointLimit !== undefined) {
      checks.push({ scope: 'endpoint', key: `ep:${routeKey}:${identity.key}`, limit: endpointLimit });
    }

    const counted = await this.counters.consume(checks.map((c) => c.key));
    const results = checks.map((check, i) => {
      const counter = counted[i] as CounterState;
      return { state: this.stateOf(check, counter), over: counter.consumed > check.limit };
    });
    const states = results.map((r) => r.state);
    const refused = results.filter((r) => r.over).map((r) => r.state);
    const identityState = states[0] as LimitState;

    if (refused.length > 0) {
      // "A refused request changes nothing": not even the counters it was counted on.
      await this.counters.refund(checks.map((c) => c.key));
      const longest = refused.reduce((a, b) => (b.msBeforeReset > a.msBeforeReset ? b : a));
      return { allowed: false, identity, identityState, reported: longest };
    }
    const nearest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    return { allowed: true, identity, identityState, reported: nearest };
  }

  /** The identity-tier limit as it stands, without counting a request. */
  async peek(caller: Caller): Promise<{ identity: Identity; state: LimitState }> {
    const identity = await this.identify(caller);
    const current = await this.counters.peek(identity.key);
    const check: Check = { scope: identity.scope, key: identity.key, limit: identity.limit };
    const state = this.stateOf(
      check,
      current ?? { consumed: 0, msBeforeReset: this.limits.windowSeconds * 1000 },
    );
    return { identity, state };
  }

  private stateOf(check: Check, counter: CounterState): LimitState {
    const now = this.deps.clock.now().getTime();
    return {
      scope: check.scope,
      limit: check.limit,
      remaining: Math.max(0, check.limit - counter.consumed),
      reset: Math.ceil((now + counter.msBeforeReset) / 1000),
      msBeforeReset: counter.msBeforeReset,
    };
  }
}
