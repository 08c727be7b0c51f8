// The fusion of sentence vectors into the ranking: vectors stored as int8 (`quantise`, int8-rows.ts), the slots'
// vectors of an index generation in one matrix kept current in place (`slotVectors`), scanned in
// WebAssembly (int8-rows.ts), and the fused relevance (`fuseRelevance`). Pure functions and data; the
// vectors themselves are kept current by endpoint-vectors.ts.
import { Int8Rows, type StoredVector } from './int8-rows.js';
import { type MatchEvidence, matchStrength } from './ranking/match-quality.js';
import { bestHit, collectHits, type Hits, hitsAtLeast, QUERY_TUNING } from './ranking/query.js';
import type { SearchIndex } from './ranking/search-index.js';
import type { IndexedEndpoint } from './ranking/types.js';

/** An encoder's cosine is mapped linearly from [floor, ceil] onto a score in [0, 1]: each encoder has its
 *  own range (a model whose unrelated texts sit near 0 needs a lower floor than one whose sit near 0.2). */
export interface CosineScale {
  floor: number;
  ceil: number;
}
/** Measured best for the Universal Sentence Encoder alone and for OpenAI's text-embedding-3 models. */
export const DEFAULT_COSINE_SCALE: CosineScale = { floor: 0.2, ceil: 0.6 };

/**
 * A query whose best match by its words alone is at least this strong (`match_strength`) is ranked by its
 * words alone; below it, by words and meaning fused. The encoder's gain is in the queries the words
 * answer weakly (paraphrases, other vocabulary); encoding every query would break issue 21's latency
 * targets (p50 6.5 ms at 10,000 endpoints). 0.5 from the dev set's cross-validation (fifth round), 0.6
 * from the eleventh round; 0.7 since the thirteenth, when two catalogues written blind showed the words'
 * strength overrates matches in a catalogue the tuning never saw (+0.017 and +0.007 nDCG@10 there, the
 * dev-catalogue sets unchanged), judged by a rule written first (docs/discovery-history.md).
 */
export const MEANING_BELOW_STRENGTH = 0.7;

/**
 * `match_strength` of the best of `hits` (every candidate's words-only relevance); 0 without hits.
 * `evidenceOf(slot)`: the query's match evidence for a slot (the service memoises it for the request).
 */
export function wordsStrength(hits: Hits, evidenceOf: (slot: number) => MatchEvidence): number {
  const top = bestHit(hits);
  return top < 0 ? 0 : matchStrength(hits.relevance[top] as number, evidenceOf(hits.slots[top] as number));
}

/**
 * The vectors of an index's slots in one int8 matrix (row i = slot i; rows of slots without a vector are
 * zero and left out through `has`), scanned in WebAssembly SIMD (int8-rows.ts). Kept current per index
 * generation by `slotVectors`, which rewrites only the rows whose vector changed.
 */
export interface SlotVectors {
  generation: number;
  dims: number;
  rows: Int8Rows;
  scales: Float32Array;
  has: Uint8Array;
  /** The vector each row holds, and the endpoint it was looked up for (to tell a changed slot by reference). */
  held: Array<StoredVector | undefined>;
  endpoints: Array<IndexedEndpoint | undefined>;
}

/** Spare rows when the matrix must grow, so that additions one provider at a time rarely copy it all. */
const GROWTH = 1.25;

/**
 * The slots' vectors for this generation of the index. `previous` (the last generation's) is updated in
 * place when it can hold the slots: only rows whose endpoint changed, or that still wait for their
 * vector, are looked up, and only rows whose vector changed are copied. `vectorOf` must give an endpoint
 * the same vector once it has one (vectors are kept by text, and an index update puts a new endpoint
 * object in every slot it changes), so a change of one provider costs a pass of reference checks: not
 * a copy of the matrix (at 100,000 endpoints ~0.1–0.3 s), nor a lookup per slot (~20 ms).
 */
export function slotVectors(
  endpoints: IndexedEndpoint[],
  vectorOf: (e: IndexedEndpoint) => StoredVector | undefined,
  generation: number,
  previous?: SlotVectors,
): SlotVectors {
  let dims = previous?.dims ?? 0;
  if (dims === 0) {
    for (const e of endpoints) {
      const v = e ? vectorOf(e) : undefined;
      if (v) {
        dims = v.q.length;
        break;
      }
    }
  }
  const n = endpoints.length;
  const out =
    previous && previous.dims === dims && previous.rows.rows >= n
      ? previous
      : emptySlots(dims, Math.max(n, Math.ceil((previous ? n * GROWTH : n) / 16) * 16));
  out.generation = generation;
  const { matrix, stride } = out.rows;
  for (let i = 0; i < out.rows.rows; i++) {
    const e = i < n ? endpoints[i] : undefined;
    if (e === out.endpoints[i] && (e === undefined || out.held[i] !== undefined)) continue;
    out.endpoints[i] = e;
    const found = e ? vectorOf(e) : undefined;
    const v = found && found.q.length === dims ? found : undefined;
    if (v === out.held[i]) continue;
    out.held[i] = v;
    if (v) matrix.set(v.q, i * stride);
    else matrix.fill(0, i * stride, (i + 1) * stride);
    out.scales[i] = v?.scale ?? 0;
    out.has[i] = v ? 1 : 0;
  }
  return out;
}

function emptySlots(dims: number, capacity: number): SlotVectors {
  return {
    generation: -1,
    dims,
    rows: new Int8Rows(capacity, dims),
    scales: new Float32Array(capacity),
    has: new Uint8Array(capacity),
    held: new Array<StoredVector | undefined>(capacity).fill(undefined),
    endpoints: new Array<IndexedEndpoint | undefined>(capacity).fill(undefined),
  };
}

/**
 * Offline relevance fused with embedding similarity: (1 − w)·offline + w·score, where the score maps the
 * cosine from the encoder's [floor, ceil] onto [0, 1]. Any endpoint may enter through its embedding
 * alone; one without a vector yet keeps its offline relevance. `offline` holds every candidate (minimum
 * relevance 0); the usual floors (QUERY_TUNING) apply to the fused relevance.
 */
export function fuseRelevance(
  index: SearchIndex,
  offline: Hits,
  query: Float32Array,
  vectors: SlotVectors,
  weight: number,
  scale: CosineScale,
  allowed?: (i: number) => boolean,
): Hits {
  if (vectors.dims === 0 || query.length !== vectors.dims)
    return hitsAtLeast(offline, QUERY_TUNING.minRelevance);
  const { alive } = index;
  const n = index.endpoints.length;
  // Dense per slot: a Map of every slot's score costs as much as the cosines.
  const relevance = new Float32Array(n);
  for (let k = 0; k < offline.slots.length; k++)
    relevance[offline.slots[k] as number] = offline.relevance[k] as number;
  let best = 0;
  const { dots, unit } = vectors.rows.dotAll(query);
  const { scales, has } = vectors;
  let closest = Number.NEGATIVE_INFINITY;
  let sum = 0;
  let scanned = 0;
  for (let i = 0; i < n; i++) {
    if (alive[i] !== 1 || has[i] !== 1) continue;
    const cosine = (dots[i] as number) * unit * (scales[i] as number);
    // The stand-out is the whole catalogue's, filters or not: within a category or a price band the
    // endpoints are alike, and their mean would say less about whether anything means what was asked.
    if (cosine > closest) closest = cosine;
    sum += cosine;
    scanned++;
    if (allowed && !allowed(i)) continue;
    const score = Math.min(1, Math.max(0, (cosine - scale.floor) / (scale.ceil - scale.floor)));
    const r = (1 - weight) * (relevance[i] as number) + weight * score;
    relevance[i] = r;
  }
  for (let i = 0; i < n; i++) if ((relevance[i] as number) > best) best = relevance[i] as number;
  const floor = Math.max(QUERY_TUNING.minRelevance, QUERY_TUNING.relativeFloor * best);
  // Zero is never a match (a slot no vector and no word reached).
  const hits = collectHits(
    n,
    (i) => i,
    (i) => relevance[i] as number,
    Math.max(floor, Number.MIN_VALUE),
  );
  // How far the closest endpoint in meaning stands out from the catalogue (match_strength reads it).
  return scanned === 0 ? hits : { ...hits, standOut: closest - sum / scanned };
}
