// x402: agents without an account pay per call in USDC (docs/x402.md).
export type { Facilitator } from './facilitator.js';
export { createRemoteFacilitator } from './facilitator.js';
export { createLocalFacilitator, type SettlementChain } from './local-facilitator.js';
export { x402Routes, x402Url } from './routes.js';
export { createX402Runtime, type SettledTransfer, type X402Runtime } from './runtime.js';
