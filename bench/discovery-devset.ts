// The dev set (../shared/discovery/dev) as ranking input, and its evaluation with the pure ranking
// functions (no HTTP): used by the offline tuning script.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { usdcNumberToCredits, usdcToCredits } from '../src/lib/money.js';
import { type DiscoveryFilters, passesFilters } from '../src/modules/discovery/ranking/filters.js';
import { scoreQuery } from '../src/modules/discovery/ranking/query.js';
import type { SearchIndex } from '../src/modules/discovery/ranking/search-index.js';
import { type IndexedEndpoint, NO_CALLS_QUALITY } from '../src/modules/discovery/ranking/types.js';
import { type DevProvider, type DevQuery, ndcgAt, recallAt, reciprocalRank } from './discovery-metrics.js';

export const DEV_DIR = path.join(import.meta.dirname, '../../shared/discovery/dev');

export function loadDevSet(dir = DEV_DIR) {
  const providers = JSON.parse(readFileSync(path.join(dir, 'catalogue.json'), 'utf8')) as DevProvider[];
  const queries = JSON.parse(readFileSync(path.join(dir, 'queries.json'), 'utf8')) as DevQuery[];
  return { providers, queries };
}

export function toIndexedEndpoints(providers: DevProvider[]): IndexedEndpoint[] {
  return providers.flatMap((p) =>
    p.endpoints.map((e) => ({
      providerId: p.provider_id,
      providerName: p.name,
      providerDescription: p.description,
      category: p.category,
      providerTags: p.tags ?? [],
      slug: e.slug,
      method: e.method,
      description: e.description,
      tags: e.tags ?? [],
      parameters: e.parameters,
      responseSchema: e.response_schema ?? null,
      priceCredits: usdcToCredits(e.pricing.price_per_call_usdc),
    })),
  );
}

export function devFilters(f: Record<string, unknown> = {}): DiscoveryFilters {
  return {
    ...(typeof f.category === 'string' ? { category: f.category } : {}),
    ...(Array.isArray(f.tags) ? { tags: f.tags as string[] } : {}),
    ...(typeof f.max_price_per_call === 'number'
      ? { maxPriceCredits: usdcNumberToCredits(f.max_price_per_call) }
      : {}),
    ...(typeof f.method === 'string' ? { method: f.method.toUpperCase() } : {}),
  };
}

export interface QueryOutcome {
  query: DevQuery;
  ranked: string[];
  topRelevance: number;
  ndcg: number;
  recall: number;
  rr: number;
}

export function evaluate(index: SearchIndex, queries: DevQuery[]) {
  const { endpoints } = index;
  const outcomes: QueryOutcome[] = [];
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  let counted = 0;
  for (const q of queries) {
    const filters = devFilters(q.filters);
    const hits = scoreQuery(index, q.query, (i) =>
      passesFilters(endpoints[i] as IndexedEndpoint, NO_CALLS_QUALITY, filters),
    );
    const ranked = hits.map((h) => `${endpoints[h.index]?.providerId}/${endpoints[h.index]?.slug}`);
    const answerable = Object.keys(q.relevant).length > 0;
    const n = answerable ? ndcgAt(ranked, q.relevant) : 0;
    const r = answerable ? recallAt(ranked, q.relevant) : 0;
    const rr = answerable ? reciprocalRank(ranked, q.relevant) : 0;
    if (answerable) {
      ndcg += n;
      recall += r;
      mrr += rr;
      counted++;
    }
    outcomes.push({ query: q, ranked, topRelevance: hits[0]?.relevance ?? 0, ndcg: n, recall: r, rr });
  }
  return { ndcg: ndcg / counted, recall: recall / counted, mrr: mrr / counted, outcomes };
}
