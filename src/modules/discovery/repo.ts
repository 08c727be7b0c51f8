// Discovery's reads: the whole catalogue (providers + endpoints), a cheap catalogue fingerprint for
// noticing changes made by other instances, and the quality metrics of every endpoint.
import { sql } from 'drizzle-orm';
import { type Executor, rows } from '../../db/index.js';
import { liveProvider, loadEndpointQuality } from '../catalog/index.js';
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
        WHERE ${liveProvider('p')}
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

/** Quality metrics keyed "provider/slug" (the catalogue's loader); endpoints without a row have defaults. */
export async function loadQuality(db: Executor): Promise<Map<string, QualityMetrics>> {
  const byKey = await loadEndpointQuality(db);
  const map = new Map<string, QualityMetrics>();
  for (const [key, q] of byKey) {
    map.set(key, {
      uptimePct: q.uptime_pct,
      avgLatencyMs: q.avg_latency_ms,
      errorRatePct: q.error_rate_pct,
      totalCalls: q.total_calls,
    });
  }
  return map;
}
