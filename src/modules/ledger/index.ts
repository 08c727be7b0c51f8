// The ledger: balances and their append-only entries, the debit rule and the money movements of paid
// calls. It knows no module above it (docs/architecture.md).
export { creditAccountByAdmin, parsePositiveUsdc } from './admin-credit.js';
export { debitBatchForAccount } from './batch-debit.js';
export {
  type CallOutcome,
  type CallResultRecord,
  type DebitForCallInput,
  type DebitResult,
  debitForCall,
  debitForCallQuick,
  explainRefusal,
  type RefundReason,
  type RefundResult,
  type Refusal,
  recordWalletPaidCall,
  refundCall,
  settleChargedCalls,
  type WalletPaidCallRecord,
} from './calls.js';
export type { RefusalKind } from './debit-rule.js';
export {
  type LedgerTransaction,
  toLedgerTransaction,
  toWalletEntry,
  WALLET_TYPE_SOURCES,
  type WalletEntryType,
  type WalletHistoryEntry,
  walletTypeOf,
} from './format.js';
export { debitAcrossAccounts } from './multi-debit.js';
export { ledgerAdminRoutes } from './routes.js';
export {
  checkLedgerInvariants,
  countSuccessfulPayment,
  DuplicateLedgerEntry,
  type EntryType,
  findEntryByKey,
  InsufficientBalance,
  type InvariantViolation,
  type LedgerEntry,
  nextHistorySeq,
  type PostEntryInput,
  postEntry,
  UnknownAccount,
} from './service.js';
