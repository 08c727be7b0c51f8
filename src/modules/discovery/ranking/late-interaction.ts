// Late interaction (ColBERT's MaxSim, Khattab & Zaharia 2020) over MiniLM's token rows: every word of the
// query, read in its sentence, is matched with the closest word of the endpoint, read in its own. A
// sentence vector averages a text into one point and loses which word meant what; this keeps it, so it
// tells "book a flight" from an aviation-weather report better than either's mean vector
// (docs/discovery-history.md, "Tenth round"). It reorders the first LATE_TUNING.depth hits of a query the
// sentence encoder was asked about (`lateOrder`); the rows come from the same model run as the sentence
// vectors (late-tokens.mjs).
import { Int8Rows, type StoredVector } from '../int8-rows.js';
import { TOKEN_DIMS } from '../late-tokens.mjs';
import type { Hits } from './query.js';

/**
 * `weight` of the late score in the reranked relevance, the cosine range [floor, ceil] mapped onto
 * [0, 1], and how many of the best hits are reranked. Chosen by the dev set's cross-validation
 * (`npm run eval:discovery`; docs/discovery-history.md, "Tenth round").
 */
export const LATE_TUNING = { weight: 0.3, floor: 0.3, ceil: 0.7, depth: 30 };

/** Hits with the order late interaction gave them, when it did (`lateOrder`). */
export type OrderedHits = Hits & { order?: Float64Array };

/** Rows the scratch matrix holds at first: the depth's endpoints at their usual length fit. */
const SCRATCH_ROWS = 2048;
/**
 * The endpoints' rows of one scoring, copied side by side into WebAssembly memory (int8-rows.ts): every
 * query row's dot products with all of them are one SIMD pass (~20 µs for 1,000 rows) instead of ~2 ms
 * of JavaScript loops for a query. Reused from one scoring to the next: a scoring never awaits, so two
 * never interleave.
 */
let scratch: Int8Rows | undefined;

/**
 * For each endpoint, the mean over the query's rows of the best cosine with any of the endpoint's rows
 * (all unit length, TOKEN_DIMS wide; the endpoints' stored as int8 times their scale). 0 for an endpoint
 * without rows, and for every endpoint when the query has none.
 */
export function lateScores(query: Float32Array, endpoints: StoredVector[]): Float64Array {
  const scores = new Float64Array(endpoints.length);
  const n = query.length / TOKEN_DIMS;
  const counts = endpoints.map((e) => e.q.length / TOKEN_DIMS);
  const total = counts.reduce((a, b) => a + b, 0);
  if (n === 0 || total === 0) return scores;
  if (!scratch || scratch.rows < total) scratch = new Int8Rows(Math.max(SCRATCH_ROWS, total), TOKEN_DIMS);
  const rows = scratch;
  let at = 0;
  endpoints.forEach((e, k) => {
    // stride === TOKEN_DIMS (96 is a multiple of the kernel's 16 lanes): the rows are copied as they are.
    rows.matrix.set(e.q, at * rows.stride);
    at += counts[k] as number;
  });
  for (let i = 0; i < n; i++) {
    const { dots, unit } = rows.dotRange(query.subarray(i * TOKEN_DIMS, (i + 1) * TOKEN_DIMS), 0, total);
    let from = 0;
    endpoints.forEach((e, k) => {
      const to = from + (counts[k] as number);
      let best = Number.NEGATIVE_INFINITY;
      for (let r = from; r < to; r++) if ((dots[r] as number) > best) best = dots[r] as number;
      if (to > from) scores[k] = (scores[k] as number) + best * unit * e.scale;
      from = to;
    });
  }
  for (let k = 0; k < scores.length; k++) scores[k] = (scores[k] as number) / n;
  return scores;
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
  const late = lateScores(query, rows as StoredVector[]);
  const order = hits.relevance.map((r) => (1 - weight) * r);
  best.forEach((k, i) => {
    const score = Math.min(1, Math.max(0, ((late[i] as number) - floor) / (ceil - floor)));
    order[k] = (order[k] as number) + weight * score;
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
