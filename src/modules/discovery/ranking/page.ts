// The page of a discovery request: the matches (or, without a query, every live slot) that pass the
// filters, best first — relevance × the endpoint's order boosts, then cheaper, then more used, then a
// stable key — down to `depth`. Positions and scores are kept in arrays and objects are made for the
// page only: an object per match was most of what a request left for the garbage collector.
import { type DiscoveryFilters, hasFilters, passesFilters } from './filters.js';
import type { EndpointBoosts } from './order.js';
import { selectTop } from './top.js';
import { endpointKey, type IndexedEndpoint, type QualityMetrics } from './types.js';

export interface PageEntry {
  endpoint: IndexedEndpoint;
  quality: QualityMetrics;
  relevance: number;
  /** The order score: relevance × boosts (filters alone: the boosts). */
  score: number;
  /** The endpoint's slot in the index. */
  at: number;
}

export interface PageInput {
  endpoints: IndexedEndpoint[];
  alive: Uint8Array;
  /** Quality metrics and order boosts aligned with the slots. */
  qualities: QualityMetrics[];
  boosts: EndpointBoosts;
  /**
   * The query's matches (slot and relevance; `order`, when given, is the relevance they are ordered by,
   * late-interaction.ts); undefined: filters alone, every live slot a candidate.
   */
  matches: { indices: Int32Array; relevance: Float32Array; order?: Float32Array } | undefined;
  filters: DiscoveryFilters;
  depth: number;
}

/** The best `depth` entries, in order, and how many passed in all. */
export function rankPage(p: PageInput): { top: PageEntry[]; total: number } {
  const { endpoints, alive, qualities, boosts, matches } = p;
  const count = matches ? matches.indices.length : endpoints.length;
  const filtered = hasFilters(p.filters);
  // Position c: in `matches`, or a slot without a query.
  const slotAt = (c: number) => (matches ? (matches.indices[c] as number) : c);
  // Filters alone: every endpoint passing them answers the request fully (relevance 1).
  const relevanceAt = (c: number) => (matches ? (matches.relevance[c] as number) : 1);
  const order = matches?.order ?? matches?.relevance;
  const scores = new Float64Array(count);
  const passing: number[] = [];
  for (let c = 0; c < count; c++) {
    const i = slotAt(c);
    // Filters alone walk every slot: a removed endpoint's slot is skipped (matches never hold one).
    if (alive[i] !== 1) continue;
    if (
      filtered &&
      !passesFilters(endpoints[i] as IndexedEndpoint, qualities[i] as QualityMetrics, p.filters)
    )
      continue;
    scores[c] = order
      ? (order[c] as number) * (boosts.withQuery[i] as number)
      : (boosts.filtersOnly[i] as number);
    passing.push(c);
  }
  const top = selectTop(passing, p.depth, rankedOrder(scores, slotAt, endpoints, qualities)).map((c) => {
    const at = slotAt(c);
    const endpoint = endpoints[at] as IndexedEndpoint;
    const quality = qualities[at] as QualityMetrics;
    return { endpoint, quality, relevance: relevanceAt(c), score: scores[c] as number, at };
  });
  return { top, total: passing.length };
}

/**
 * Best first: order score, then cheaper, then more used, then a stable key. Compares positions of the
 * passing matches (`slotAt` gives their slot); returns -1/0/1, never a difference of doubles (a heap
 * number per call).
 */
function rankedOrder(
  scores: Float64Array,
  slotAt: (c: number) => number,
  endpoints: IndexedEndpoint[],
  qualities: QualityMetrics[],
) {
  return (a: number, b: number): number => {
    const sa = scores[a] as number;
    const sb = scores[b] as number;
    if (sa !== sb) return sa > sb ? -1 : 1;
    const ea = endpoints[slotAt(a)] as IndexedEndpoint;
    const eb = endpoints[slotAt(b)] as IndexedEndpoint;
    if (ea.priceCredits !== eb.priceCredits) return ea.priceCredits < eb.priceCredits ? -1 : 1;
    const ca = (qualities[slotAt(a)] as QualityMetrics).totalCalls;
    const cb = (qualities[slotAt(b)] as QualityMetrics).totalCalls;
    if (ca !== cb) return ca > cb ? -1 : 1;
    return endpointKey(ea.providerId, ea.slug).localeCompare(endpointKey(eb.providerId, eb.slug));
  };
}
