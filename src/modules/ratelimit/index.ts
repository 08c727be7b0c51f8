// Rate limits per IP, identity and trust tier, shared across instances through Redis when configured.
export { registerRateLimiting } from './plugin.js';
export { type RateLimitStatus, rateLimitStatus, type TrustTier } from './status.js';
