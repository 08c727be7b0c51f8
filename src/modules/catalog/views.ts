// Response shapes of the catalogue (docs/catalog.md) built from repo records. base_url and
// secrets appear only in the admin view.
import type { Executor } from '../../db/index.js';
import { creditsToUsdcShort } from '../../lib/money.js';
import {
  type CatalogEndpoint,
  type CatalogProvider,
  DEFAULT_QUALITY,
  type EndpointQuality,
  loadEndpointQuality,
  qualityKey,
} from './repo.js';

export function pricingOf(endpoint: CatalogEndpoint) {
  return { model: 'per_call' as const, price_per_call_usdc: creditsToUsdcShort(endpoint.priceCredits) };
}

/**
 * The JSON Schema a call body (or, for GET, its query parameters) must satisfy: the parameter map
 * turned into an object schema. Unknown fields are refused.
 */
export function requestSchemaOf(endpoint: Pick<CatalogEndpoint, 'parameters'>) {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const [name, { required: isRequired, ...schema }] of Object.entries(endpoint.parameters)) {
    properties[name] = schema;
    if (isRequired) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

function providerFields(p: CatalogProvider) {
  return {
    provider_id: p.id,
    name: p.name,
    description: p.description,
    category: p.category,
    website: p.website,
    tags: p.tags,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

function endpointFields(e: CatalogEndpoint, quality: Map<string, EndpointQuality>) {
  return {
    slug: e.slug,
    method: e.method,
    description: e.description,
    tags: e.tags,
    parameters: e.parameters,
    response_schema: e.responseSchema,
    pricing: pricingOf(e),
    quality: quality.get(qualityKey(e.providerId, e.slug)) ?? DEFAULT_QUALITY,
  };
}

/** List item: docs/catalog.md (endpoints with slug, description and pricing, plus method and tags). */
export function providerSummaryView(p: CatalogProvider) {
  return {
    ...providerFields(p),
    endpoints: p.endpoints.map((e) => ({
      slug: e.slug,
      method: e.method,
      description: e.description,
      tags: e.tags,
      pricing: pricingOf(e),
    })),
  };
}

export function providerView(p: CatalogProvider, quality: Map<string, EndpointQuality>) {
  return { ...providerFields(p), endpoints: p.endpoints.map((e) => endpointFields(e, quality)) };
}

export function endpointDetailView(
  p: CatalogProvider,
  e: CatalogEndpoint,
  quality: Map<string, EndpointQuality>,
) {
  return {
    provider_id: p.id,
    provider_name: p.name,
    category: p.category,
    ...endpointFields(e, quality),
    request_schema: requestSchemaOf(e),
    timeout_ms: e.timeoutMs,
  };
}

/** The admin (and owner) view of a provider with its quality rows loaded. */
export async function loadAdminProviderView(ex: Executor, p: CatalogProvider) {
  return adminProviderView(p, await loadEndpointQuality(ex, p.id));
}

/** The answer to a create: the admin view plus the secret, shown this once. */
export async function loadCreatedProviderView(
  ex: Executor,
  created: { provider: CatalogProvider; secret: string },
) {
  return { ...(await loadAdminProviderView(ex, created.provider)), provider_secret: created.secret };
}

export function adminProviderView(p: CatalogProvider, quality: Map<string, EndpointQuality>) {
  return {
    ...providerFields(p),
    base_url: p.baseUrl,
    owner_account_id: p.ownerAccountId,
    status: p.status,
    endpoints: p.endpoints.map((e) => ({
      ...endpointFields(e, quality),
      path: e.path,
      timeout_ms: e.timeoutMs,
    })),
  };
}
