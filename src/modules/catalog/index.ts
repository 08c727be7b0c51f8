// The catalogue: providers and their endpoints (tables `providers`, `endpoints`), their public and admin
// routes, request signing towards providers, and the `svc admin provider-*` commands.
export { providerAdminCommands } from './cli.js';
export {
  type CatalogueEndpoint,
  type CatalogueProvider,
  DEFAULT_QUALITY,
  type EndpointQuality,
  findEndpoint,
  findProvider,
  liveProvider,
  loadCatalogue,
  loadEndpointQuality,
} from './repo.js';
export { catalogRoutes } from './routes.js';
export { registerProvider } from './service.js';
export {
  CALL_ID_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  signProviderRequest,
  TIMESTAMP_HEADER,
  verifyProviderSignature,
} from './signature.js';
