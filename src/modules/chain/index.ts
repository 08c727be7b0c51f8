// The chain module's public entry (deposits and x402 build on it): network config, the per-app
// chain runtime, the devnet launcher, the platform key's one transaction sender, and the public routes.

export {
  BASE,
  BASE_SEPOLIA,
  DEVNET,
  MIN_DEPOSIT_CREDITS,
  type NetworkInfo,
  networkFor,
} from '../../adapters/chain/networks.js';
export {
  type ChainRuntime,
  chainUnavailable,
  createChainRuntime,
  isNotFound,
  type ReadyChain,
  RPC_RETRY_AFTER_SECONDS,
  readyChain,
  rpc,
} from '../../adapters/chain/runtime.js';
export { testUsdcArtifact, usdcAbi } from './abi.js';
export { anvilBinary, freePort, startAnvil } from './anvil.js';
export { assertChainNotBehindLedger, ChainBehindLedger } from './consistency.js';
export {
  ANVIL_DEPLOYER_KEY,
  type DevnetChain,
  deployTestToken,
  fundGas,
  startDevnetChain,
  withDevnetChain,
} from './devnet.js';
export { faucet } from './faucet.js';
export {
  findPlatformTransaction,
  NoPlatformKey,
  type PlatformTx,
  PlatformTxRejected,
  type PlatformTxRequest,
  type PlatformTxStatus,
  platformTransactionsJob,
  refreshPlatformTransaction,
  replaceStuckTransaction,
  sendPlatformTransaction,
  waitForPlatformTransaction,
} from './platform-tx.js';
export { chainRoutes } from './routes.js';
