// API keys of an account: create, list, revoke (the `api_keys` table).
export { keysRoutes } from './routes.js';
export {
  type ApiKeyView,
  type CreatedApiKey,
  createApiKey,
  listApiKeys,
  type RevokedApiKey,
  revokeApiKey,
} from './service.js';
