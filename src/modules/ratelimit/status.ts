// What the rate limiter reports about a caller without consuming a request (for /v1/auth/status and
// the MCP tool svc_auth_status). Stub until the rate-limit issue implements it; the signature is the contract.
import type { FastifyRequest } from 'fastify';

export type TrustTier = 'new' | 'established' | 'trusted';

export interface RateLimitStatus {
  trust_tier: TrustTier | null;
  rate_limit: { limit: number; remaining: number; reset: number };
}

export async function rateLimitStatus(_request: FastifyRequest): Promise<RateLimitStatus> {
  return {
    trust_tier: null,
    rate_limit: { limit: 20, remaining: 20, reset: Math.ceil(Date.now() / 1000) + 60 },
  };
}
