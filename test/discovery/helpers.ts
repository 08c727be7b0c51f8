// Small catalogue builders for the discovery tests (providers go through the real admin API).

import type { IndexedEndpoint } from '../../src/modules/discovery/ranking/types.js';
import type { TestApp } from '../helpers/app.js';

export interface EndpointSpec {
  slug: string;
  description: string;
  method?: string;
  tags?: string[];
  price?: string;
  parameters?: Record<string, { type: string; required: boolean; description: string }>;
}

export interface ProviderSpec {
  id: string;
  name?: string;
  description?: string;
  category?: string;
  tags?: string[];
  endpoints: EndpointSpec[];
}

export function providerBody(p: ProviderSpec) {
  return {
    provider_id: p.id,
    name: p.name ?? p.id,
    description: p.description ?? `${p.id} provider`,
    category: p.category ?? 'utility',
    base_url: 'http://127.0.0.1:9',
    tags: p.tags ?? [],
    endpoints: p.endpoints.map((e) => ({
      slug: e.slug,
      method: e.method ?? 'POST',
      description: e.description,
      tags: e.tags ?? [],
      parameters: e.parameters ?? { input: { type: 'string', required: true, description: 'input' } },
      pricing: { model: 'per_call', price_per_call_usdc: e.price ?? '0.001' },
    })),
  };
}

export async function createProvider(t: TestApp, p: ProviderSpec) {
  const res = await t.admin('POST', '/v1/admin/providers', providerBody(p));
  if (res.statusCode !== 201) throw new Error(`create provider failed: ${res.statusCode} ${res.body}`);
}

export interface DiscoverItem {
  provider_id: string;
  endpoint_slug: string;
  relevance_score: number;
  pricing: { model: string; price_per_call_usdc: string };
  quality: { uptime_pct: number; avg_latency_ms: number; error_rate_pct: number; total_calls: number };
  [key: string]: unknown;
}

export interface DiscoverBodyOut {
  results: DiscoverItem[];
  meta: { request_id: string; total_results: number; query_time_ms: number };
}

export async function discover(t: TestApp, payload: unknown, headers: Record<string, string> = {}) {
  return t.inject({ method: 'POST', url: '/v1/discover', payload: payload as object, headers });
}

export async function discoverOk(t: TestApp, payload: unknown, headers: Record<string, string> = {}) {
  const res = await discover(t, payload, headers);
  if (res.statusCode !== 200) throw new Error(`discover failed: ${res.statusCode} ${res.body}`);
  return res.json() as DiscoverBodyOut;
}

export const keysOf = (body: DiscoverBodyOut) =>
  body.results.map((r) => `${r.provider_id}/${r.endpoint_slug}`);

/** Discovery tests send many requests from one address; lift the anonymous rate limit for them. */
export const DISCOVERY_TEST_ENV = { SVC_RATE_LIMIT_MULTIPLIER: '1000' };

/** An index entry for the pure-function tests: one endpoint of provider `p`, as loaded from the catalogue. */
export function indexedEndpoint(slug: string, fields: Partial<IndexedEndpoint> = {}): IndexedEndpoint {
  return {
    providerId: 'p',
    providerName: 'P',
    providerDescription: '',
    category: 'utility',
    providerTags: [],
    slug,
    method: 'GET',
    description: slug,
    tags: [],
    parameters: {},
    responseSchema: null,
    priceCredits: 1n,
    ...fields,
  };
}
