// Final ordering of discovery results: relevance first, then quality, usage and price (docs/discovery.md).
import type { QualityMetrics } from './types.js';

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

/** The query-independent part of the order score of every endpoint (recomputed with quality metrics). */
export function endpointBoosts(prices: bigint[], qualities: QualityMetrics[]): EndpointBoosts {
  const withQuery = new Float64Array(prices.length);
  const filtersOnly = new Float64Array(prices.length);
  prices.forEach((price, i) => {
    const quality = qualities[i] as QualityMetrics;
    withQuery[i] = orderScore(1, quality, price);
    filtersOnly[i] = orderScore(undefined, quality, price);
  });
  return { withQuery, filtersOnly };
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
