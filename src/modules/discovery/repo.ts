// Discovery's reads: the whole catalogue (providers + endpoints), a cheap catalogue fingerprint for
// noticing changes made by other instances, and the quality metrics of every endpoint.
import { sql } from 'drizzle-orm';
import { type Executor, rows } from '../../db/index.js';
import type { CatalogueEndpoint, ParameterSpec, QualityMetrics } from './ranking/types.js';

interface EndpointRow {
  provider_id: string;
  provider_name: string;
  provider_description: string;
  category: string;
  provider_tags: string[];
  slug: string;
  method: string;
  description: string;
  tags: string[];
  parameters: Record<string, ParameterSpec> | null;
  response_schema: Record<string, unknown> | null;
  price_credits: bigint;
}

/** Every endpoint with its provider's texts, in a stable order (provider id, slug). */
export async function loadCatalogue(db: Executor): Promise<CatalogueEndpoint[]> {
  const result = await rows<EndpointRow>(
    db,
    sql`SELECT p.id AS provider_id, p.name AS provider_name, p.description AS provider_description,
               p.category, to_json(p.tags) AS provider_tags, e.slug, e.method, e.description,
               to_json(e.tags) AS tags, e.parameters, e.response_schema, e.price_credits
        FROM endpoints e JOIN providers p ON p.id = e.provider_id
        ORDER BY p.id, e.slug`,
  );
  return result.map((r) => ({
    providerId: r.provider_id,
    providerName: r.provider_name,
    providerDescription: r.provider_description,
    category: r.category,
    providerTags: r.provider_tags ?? [],
    slug: r.slug,
    method: r.method,
    description: r.description,
    tags: r.tags ?? [],
    parameters: r.parameters ?? {},
    responseSchema: r.response_schema,
    priceCredits: BigInt(r.price_credits),
  }));
}

/**
 * Changes whenever a provider is created, replaced or deleted: counts plus the newest update time.
 * One index-free aggregate over small tables, run at most every few seconds per instance.
 */
export async function catalogueFingerprint(db: Executor): Promise<string> {
  const [row] = await rows<{ providers: number; endpoints: number; updated: string | null }>(
    db,
    sql`SELECT (SELECT count(*)::int FROM providers) AS providers,
               (SELECT count(*)::int FROM endpoints) AS endpoints,
               (SELECT max(updated_at)::text FROM providers) AS updated`,
  );
  return `${row?.providers ?? 0}/${row?.endpoints ?? 0}/${row?.updated ?? ''}`;
}

interface StatsRow {
  provider_id: string;
  endpoint_slug: string;
  uptime_pct: number;
  avg_latency_ms: number;
  error_rate_pct: number;
  total_calls: bigint;
}

/** Quality metrics keyed "provider/slug"; endpoints without a row have had no calls (defaults). */
export async function loadQuality(db: Executor): Promise<Map<string, QualityMetrics>> {
  const result = await rows<StatsRow>(
    db,
    sql`SELECT provider_id, endpoint_slug, uptime_pct, avg_latency_ms, error_rate_pct, total_calls
        FROM endpoint_stats`,
  );
  const map = new Map<string, QualityMetrics>();
  for (const r of result) {
    map.set(`${r.provider_id}/${r.endpoint_slug}`, {
      uptimePct: Number(r.uptime_pct),
      avgLatencyMs: Number(r.avg_latency_ms),
      errorRatePct: Number(r.error_rate_pct),
      totalCalls: Number(r.total_calls),
    });
  }
  return map;
}
