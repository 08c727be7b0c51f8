// Discovery: search over the catalogue (`POST /v1/discover`), ranked by relevance and quality.
export { discoveryRoutes } from './routes.js';
export { DISCOVER_LIMIT_MAX } from './schemas.js';
export { createDiscovery, DiscoveryService } from './service.js';
