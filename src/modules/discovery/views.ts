// Discovery result items exactly as docs/discovery.md documents them.
import { creditsToUsdc } from '../../lib/money.js';
import type { ParameterSpec } from './ranking/types.js';
import type { DiscoveredEndpoint } from './service.js';

/** The JSON Schema a call body must satisfy, from the parameter map (as the execution module checks it). */
export function requestSchemaOf(parameters: Record<string, ParameterSpec>) {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const [name, { required: isRequired, ...schema }] of Object.entries(parameters)) {
    properties[name] = schema;
    if (isRequired) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Relevance with 4 decimals, kept inside [0, 1]. */
const roundRelevance = (r: number) => Math.round(Math.min(1, Math.max(0, r)) * 10_000) / 10_000;

export function discoveryItem({ endpoint: e, quality, relevance }: DiscoveredEndpoint) {
  return {
    provider_id: e.providerId,
    provider_name: e.providerName,
    endpoint_slug: e.slug,
    description: e.description,
    category: e.category,
    tags: e.tags,
    pricing: { model: 'per_call' as const, price_per_call_usdc: creditsToUsdc(e.priceCredits) },
    quality: {
      uptime_pct: quality.uptimePct,
      avg_latency_ms: quality.avgLatencyMs,
      error_rate_pct: quality.errorRatePct,
      total_calls: quality.totalCalls,
    },
    endpoint: {
      method: e.method,
      parameters: e.parameters,
      request_schema: requestSchemaOf(e.parameters),
      ...(e.responseSchema ? { response_schema: e.responseSchema } : {}),
    },
    relevance_score: roundRelevance(relevance),
  };
}
