// Late interaction (ColBERT's MaxSim, Khattab & Zaharia 2020) over MiniLM's token rows: every word of the
// query, read in its sentence, is matched with the closest word of the endpoint, read in its own. A
// sentence vector averages a text into one point and loses which word meant what; this keeps it, so it
// tells "book a flight" from an aviation-weather report better than either's mean vector (docs/discovery.md,
// "Tenth round"). It reorders the first LATE_TUNING.depth hits of a query the sentence encoder was asked
// about (`lateOrder`); the rows come from the same model run as the sentence vectors (late-tokens.mjs).
import type { StoredVector } from '../int8-rows.js';
import { TOKEN_DIMS } from '../late-tokens.mjs';
import type { Hits } from './query.js';

/**
 * `weight` of the late score in the reranked relevance, the cosine range [floor, ceil] mapped onto
 * [0, 1], and how many of the best hits are reranked. Chosen by the dev set's cross-validation
 * (`npm run eval:discovery`, "Tenth round").
 */
export const LATE_TUNING = { weight: 0.3, floor: 0.3, ceil: 0.7, depth: 30 };

/**
 * Mean over the query's rows of the best cosine with any of the endpoint's rows (both unit length,
 * TOKEN_DIMS wide; the endpoint's stored as int8 times its scale). 0 when either has no rows.
 */
export function lateScore(query: Float32Array, endpoint: StoredVector): number {
  const n = query.length / TOKEN_DIMS;
  const m = endpoint.q.length / TOKEN_DIMS;
  if (n === 0 || m === 0) return 0;
  const rows = endpoint.q;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const qi = i * TOKEN_DIMS;
    let best = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < m; j++) {
      const ej = j * TOKEN_DIMS;
      let dot = 0;
      for (let k = 0; k < TOKEN_DIMS; k++) dot += (query[qi + k] as number) * (rows[ej + k] as number);
      if (dot > best) best = dot;
    }
    sum += best;
  }
  return (sum * endpoint.scale) / n;
}

/**
 * The order relevance of the hits (same positions), reranked by late interaction: each of the `depth` most
 * relevant gets (1 − w)·relevance + w·clamp((lateScore − floor) / (ceil − floor)); every other hit
 * (1 − w)·relevance, as if its late score were 0, so that none of them passes a reranked one unread. The
 * relevance itself (the reported score, and `match_strength`'s) is left as it is: late interaction
 * decides the order among good matches, not how well the best one answers. Undefined unless every one of
 * the `depth` most relevant has late rows (`lateOf`): a ranking never mixes scores read two ways.
 */
export function lateOrder(
  hits: Hits,
  query: Float32Array,
  lateOf: (slot: number) => StoredVector | undefined,
  tuning = LATE_TUNING,
): Float64Array | undefined {
  const { weight, floor, ceil, depth } = tuning;
  const best = topPositions(hits, depth);
  const rows = best.map((k) => lateOf(hits.slots[k] as number));
  if (best.length === 0 || rows.some((r) => r === undefined)) return undefined;
  const order = hits.relevance.map((r) => (1 - weight) * r);
  best.forEach((k, i) => {
    const late = lateScore(query, rows[i] as StoredVector);
    order[k] = (order[k] as number) + weight * Math.min(1, Math.max(0, (late - floor) / (ceil - floor)));
  });
  return order;
}

/** Positions of the `depth` most relevant hits, best first (ties: the lower slot first, as `bestHit`). */
function topPositions(hits: Hits, depth: number): number[] {
  const before = (a: number, b: number) =>
    (hits.relevance[a] as number) > (hits.relevance[b] as number) ||
    (hits.relevance[a] === hits.relevance[b] && (hits.slots[a] as number) < (hits.slots[b] as number));
  // Insertion into a short sorted list: one comparison for most hits, which rank below its last.
  const top: number[] = [];
  for (let k = 0; k < hits.slots.length; k++) {
    if (top.length === depth && !before(k, top[depth - 1] as number)) continue;
    let i = Math.min(top.length, depth - 1);
    if (top.length < depth) top.push(k);
    while (i > 0 && before(k, top[i - 1] as number)) {
      top[i] = top[i - 1] as number;
      i--;
    }
    top[i] = k;
  }
  return top;
}
