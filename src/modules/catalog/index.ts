// The catalogue: providers and their endpoints (tables `providers`, `endpoints`), their public and admin
// routes, request signing towards providers, and the `svc admin provider-*` commands. Self-service
// listings (the providers module) write through the same functions as the admin API.
export { providerAdminCommands } from './cli.js';
export {
  type CatalogEndpoint,
  type CatalogProvider,
  DEFAULT_QUALITY,
  type EndpointQuality,
  findEndpoint,
  findProvider,
  listOwnedProviders,
  listProvidersForReview,
  liveProvider,
  loadCatalog,
  loadEndpointQuality,
} from './repo.js';
export { catalogRoutes } from './routes.js';
export {
  AdminProviderView,
  CATEGORIES,
  CreatedProviderView,
  HTTP_METHODS,
  type ProviderInput,
  ProviderInputSchema,
  ProviderParams,
  type ProviderStatus,
} from './schemas.js';
export {
  createProvider,
  deleteProvider,
  registerProvider,
  replaceProvider,
  setProviderStatus,
  validateProviderInput,
} from './service.js';
export {
  CALL_ID_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  signProviderRequest,
  TIMESTAMP_HEADER,
  verifyProviderSignature,
} from './signature.js';
export { loadAdminProviderView, loadCreatedProviderView } from './views.js';
