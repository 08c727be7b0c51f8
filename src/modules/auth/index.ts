// Identity: accounts, sessions, e-mail and wallet sign-in, and the caller of each request. It knows no
// module above it; what it needs from above (rate-limit status) is a port given at wiring time.
export {
  type AccountRef,
  type AccountStatus,
  type AccountStatusChange,
  type CreatedAccount,
  changeAccountStatus,
  createAccountWithKey,
  findAccountByEmail,
  normalizeEmail,
} from './accounts.js';
export { authAdminRoutes } from './admin-routes.js';
export {
  type Caller,
  type CredentialKind,
  cachedKeyCaller,
  resolveCaller,
  verifyDeferredCaller,
  walletHeader,
} from './caller.js';
export { type AccountCaller, accountOf } from './guards.js';
export { purgeSignInStateJob } from './jobs.js';
export { type AuthRoutesOptions, authRoutes } from './routes.js';
export { type AuthContext, type AuthRuntime, createAuthRuntime } from './runtime.js';
export {
  accountsOfWallets,
  linkedWallets,
  linkWallet,
  listLinks,
  unlinkWallet,
  type WalletLink,
} from './wallet-links.js';
export { verifyChallengeSignature } from './wallet-signin.js';
