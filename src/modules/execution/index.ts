// Paid execution: resolve the endpoint, debit, forward to the provider, settle or refund; the sweeper of
// abandoned calls and the endpoint quality figures.
export { forwardToProvider, type ProviderResult } from './forward.js';
export { parametersToSchema, type ResolvedEndpoint } from './resolve.js';
export { executionRoutes } from './routes.js';
export {
  createExecutionRuntime,
  type ExecutionContext,
  type ExecutionRuntime,
  outcomesWritten,
} from './runtime.js';
export {
  checkMaxPrice,
  type ExecuteInput,
  type ExecuteResult,
  executeCall,
  failureOf,
  MAX_PRICE_HEADER,
  MaxPriceHeader,
  validateParams,
} from './service.js';
export { refreshEndpointStats, refreshEndpointStatsJob } from './stats.js';
export { SWEEP_MARGIN_MS, sweepAbandonedCalls, sweepAbandonedCallsJob } from './sweeper.js';
