// Top-k selection: a response needs the best `limit` of possibly thousands of matches, in order.

/** The k best items by `compare` (negative = a before b), in order; O(n log k) instead of a full sort. */
export function selectTop<T>(items: T[], k: number, compare: (a: T, b: T) => number): T[] {
  if (items.length <= k * 4) return [...items].sort(compare).slice(0, k);
  const best: T[] = [];
  for (const item of items) {
    if (best.length === k && compare(item, best[k - 1] as T) >= 0) continue;
    // Binary search for the insertion point among the current best.
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(item, best[mid] as T) < 0) hi = mid;
      else lo = mid + 1;
    }
    best.splice(lo, 0, item);
    if (best.length > k) best.pop();
  }
  return best;
}
