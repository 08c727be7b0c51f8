// API keys of an account: create, list, revoke (the `api_keys` table).

export { type KeyPolicyInput, type KeyPolicyView, type KeyUsageView, keyPolicyFilter } from './policy.js';
export { keysRoutes } from './routes.js';
export {
  type ApiKeyView,
  type CreatedApiKey,
  createApiKey,
  listApiKeys,
  type RevokedApiKey,
  revokeApiKey,
  setApiKeyPolicy,
} from './service.js';
