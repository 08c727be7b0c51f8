// Final ordering of discovery results: relevance first, then quality, usage and price (docs/discovery.md).
import type { IndexedEndpoint, QualityMetrics } from './types.js';

/** Quality in [0, 1]: uptime dominates, then error rate and latency. */
export function qualityScore(q: QualityMetrics): number {
  const uptime = Math.min(1, Math.max(0, q.uptimePct / 100)) ** 8;
  const errors = Math.min(1, Math.max(0, 1 - q.errorRatePct / 100)) ** 4;
  const latency = 1 / (1 + Math.max(0, q.avgLatencyMs) / 1000);
  return 0.55 * uptime + 0.25 * errors + 0.2 * latency;
}

/** Usage in [0, 1]: log scale, a million lifetime calls is the top. */
export function usageScore(totalCalls: number): number {
  return Math.min(1, Math.log10(1 + Math.max(0, totalCalls)) / 6);
}

/** Price in (0, 1]: cheaper is higher, log scale (0.0001 USDC ~ 0.77, 0.01 USDC ~ 0.33). */
export function priceScore(priceCredits: bigint): number {
  const usdc = Number(priceCredits) / 1_000_000;
  return 1 / (1 + Math.log10(1 + usdc / 0.0001));
}

export interface EndpointBoosts {
  /** Multiplier of relevance when there is a query, in [0.75, 1]. */
  withQuery: Float64Array;
  /** Score when there are only filters, in [0, 1]. */
  filtersOnly: Float64Array;
}

/**
 * Quality metrics and order boosts aligned with an index's slots, and the endpoint each slot held when
 * they were computed.
 */
export interface AlignedBoosts {
  qualities: QualityMetrics[];
  boosts: EndpointBoosts;
  endpoints: Array<IndexedEndpoint | undefined>;
}

/**
 * The query-independent part of the order score of every slot's endpoint. With `previous` (computed with
 * the same quality metrics) only the slots whose endpoint changed are computed again: an index update
 * puts new endpoint objects in the slots it changes, so a change of one provider costs a pass of
 * reference checks, not every slot's scores (at 100,000 endpoints ~25 ms, paid by the first request
 * after each change).
 */
export function alignBoosts(
  endpoints: IndexedEndpoint[],
  qualityOf: (e: IndexedEndpoint) => QualityMetrics,
  previous?: AlignedBoosts,
): AlignedBoosts {
  const n = endpoints.length;
  const out =
    previous && previous.boosts.withQuery.length >= n ? previous : grown(previous, Math.ceil(n * 1.25) + 16);
  const { withQuery, filtersOnly } = out.boosts;
  for (let i = 0; i < n; i++) {
    const e = endpoints[i] as IndexedEndpoint;
    if (out.endpoints[i] === e) continue;
    const quality = qualityOf(e);
    out.endpoints[i] = e;
    out.qualities[i] = quality;
    withQuery[i] = orderScore(1, quality, e.priceCredits);
    filtersOnly[i] = orderScore(undefined, quality, e.priceCredits);
  }
  out.qualities.length = n;
  out.endpoints.length = n;
  return out;
}

/** Room for `capacity` slots, keeping what `previous` computed. */
function grown(previous: AlignedBoosts | undefined, capacity: number): AlignedBoosts {
  const withQuery = new Float64Array(capacity);
  const filtersOnly = new Float64Array(capacity);
  if (previous) {
    withQuery.set(previous.boosts.withQuery);
    filtersOnly.set(previous.boosts.filtersOnly);
  }
  return {
    qualities: previous?.qualities ?? [],
    boosts: { withQuery, filtersOnly },
    endpoints: previous?.endpoints ?? [],
  };
}

/**
 * Ordering score. With a query, relevance dominates and the rest moves an endpoint by at most a quarter
 * of its relevance; without one (filters only) quality, usage and price decide.
 */
export function orderScore(
  relevance: number | undefined,
  quality: QualityMetrics,
  priceCredits: bigint,
): number {
  const q = qualityScore(quality);
  const u = usageScore(quality.totalCalls);
  const p = priceScore(priceCredits);
  if (relevance === undefined) return 0.6 * q + 0.2 * u + 0.2 * p;
  return relevance * (0.75 + 0.13 * q + 0.06 * u + 0.06 * p);
}
