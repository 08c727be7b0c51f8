// What the rate limiter reports about a caller without consuming a request (for /v1/auth/status and
// the MCP tool svc_auth_status). The signature is the contract.
import type { FastifyRequest } from 'fastify';
import { decisionFor, type LimitState } from './limiter.js';

export type TrustTier = 'new' | 'established' | 'trusted';

export interface RateLimitStatus {
  trust_tier: TrustTier | null;
  rate_limit: { limit: number; remaining: number; reset: number };
}

function publicState(state: LimitState): RateLimitStatus['rate_limit'] {
  return { limit: state.limit, remaining: state.remaining, reset: state.reset };
}

/**
 * The caller's trust tier and identity-tier limit. For a request that went through the limiter this is
 * what it counted (this request included); otherwise the counter is read without counting.
 */
export async function rateLimitStatus(request: FastifyRequest): Promise<RateLimitStatus> {
  const decision = decisionFor(request);
  if (decision) {
    return { trust_tier: decision.identity.trustTier, rate_limit: publicState(decision.identityState) };
  }
  const { identity, state } = await request.server.rateLimiter.peek(request.caller);
  return { trust_tier: identity.trustTier, rate_limit: publicState(state) };
}
