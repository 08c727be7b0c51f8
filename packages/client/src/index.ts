// @svc/client: typed client for the svc capability marketplace (packages/client/README.md).
export { type Challenge, WALLET_REFRESH_MARGIN_MS, WalletSession, type WalletSigner } from './auth.js';
export type { CallCandidate, CallOptions, CallResult } from './call.js';
export {
  type ExecuteOptions,
  type ExecuteResult,
  type KeyPolicy,
  SvcClient,
  type SvcClientOptions,
} from './client.js';
export { type CallAttempt, CLIENT_ERROR_CODES, parseRetryAfter, SvcError } from './errors.js';
export { creditsToUsdc, usdcToCredits } from './money.js';
export { DEFAULT_RETRY, type RetryPolicy } from './transport.js';
export type { BodyOf, paths, QueryOf, ResponseOf } from './types.js';
export { createX402Payer, type X402CallResult, type X402Payer, type X402PayerOptions } from './x402.js';
