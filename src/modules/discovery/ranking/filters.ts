// Structured filters of POST /v1/discover: hard cutoffs applied to the matches (docs/discovery.md).
import type { IndexedEndpoint, QualityMetrics } from './types.js';

export interface DiscoveryFilters {
  category?: string;
  tags?: string[];
  /** USDC ceiling as credits (inclusive). */
  maxPriceCredits?: bigint;
  /** Inclusive lower bound. */
  minUptimePct?: number;
  /** Upper-case HTTP method. */
  method?: string;
  /** Only these providers / categories (`allowed_only`: the allow-lists of the caller's key policy). */
  providerIds?: string[];
  categories?: string[];
}

export function hasFilters(f: DiscoveryFilters): boolean {
  return Object.values(f).some((v) => v !== undefined);
}

/** The filters as a cache key: the same filters give the same key (a price ceiling in credits as digits). */
export function filtersKey(f: DiscoveryFilters): string {
  return JSON.stringify(
    Object.entries(f)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
    (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
  );
}

/**
 * `passesFilters` for the slots of an index, each slot judged at most once: matching asks of a slot more
 * than once (the words, the fusion with meaning, the page), and the fusion asks of every slot.
 */
export function slotFilter(
  endpoints: readonly IndexedEndpoint[],
  qualities: readonly QualityMetrics[],
  f: DiscoveryFilters,
): (slot: number) => boolean {
  // 0: not judged yet, 1: passes, -1: does not.
  const judged = new Int8Array(endpoints.length);
  return (slot) => {
    let verdict = judged[slot] as number;
    if (verdict === 0) {
      verdict = passesFilters(endpoints[slot] as IndexedEndpoint, qualities[slot] as QualityMetrics, f)
        ? 1
        : -1;
      judged[slot] = verdict;
    }
    return verdict === 1;
  };
}

/** True when the endpoint passes every filter. Tags match endpoint or provider tags, case-insensitively. */
export function passesFilters(e: IndexedEndpoint, quality: QualityMetrics, f: DiscoveryFilters): boolean {
  if (f.category !== undefined && e.category !== f.category) return false;
  if (f.method !== undefined && e.method.toUpperCase() !== f.method) return false;
  if (f.providerIds !== undefined && !f.providerIds.includes(e.providerId)) return false;
  if (f.categories !== undefined && !f.categories.includes(e.category)) return false;
  if (f.maxPriceCredits !== undefined && e.priceCredits > f.maxPriceCredits) return false;
  if (f.minUptimePct !== undefined && quality.uptimePct < f.minUptimePct) return false;
  if (f.tags !== undefined && f.tags.length > 0) {
    const own = new Set([...e.tags, ...e.providerTags].map((t) => t.toLowerCase()));
    if (!f.tags.every((t) => own.has(t.toLowerCase()))) return false;
  }
  return true;
}
