// What the ranking sees of the catalogue: one entry per endpoint, with its provider's texts and metrics.

export interface ParameterSpec {
  type?: string;
  required?: boolean;
  description?: string;
  [key: string]: unknown;
}

/** An endpoint as discovery indexes it: its texts and its provider's, flattened (the catalog module has its own `CatalogEndpoint`). */
export interface IndexedEndpoint {
  providerId: string;
  providerName: string;
  providerDescription: string;
  category: string;
  providerTags: string[];
  slug: string;
  method: string;
  description: string;
  tags: string[];
  parameters: Record<string, ParameterSpec>;
  responseSchema: Record<string, unknown> | null;
  priceCredits: bigint;
}

/** Quality metrics (docs/discovery.md); an endpoint without calls has uptime 100, latency 0, error rate 0. */
export interface QualityMetrics {
  uptimePct: number;
  avgLatencyMs: number;
  errorRatePct: number;
  totalCalls: number;
}

export const NO_CALLS_QUALITY: QualityMetrics = {
  uptimePct: 100,
  avgLatencyMs: 0,
  errorRatePct: 0,
  totalCalls: 0,
};

export const endpointKey = (providerId: string, slug: string) => `${providerId}/${slug}`;
