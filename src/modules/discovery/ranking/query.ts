// Query side of the ranking: analyse the query (content words, short forms spelled out, typo correction,
// expansion to catalogue words of similar meaning), score candidates lexically (BM25+, lexical.ts), by
// soft coverage of the query words and by meaning (cosine of SIF-weighted mean word vectors), and blend
// them into one relevance in [0, 1].
import { scoreLexical } from './lexical.js';
import {
  idfOf,
  LEXICAL_BOOSTS,
  type QueryScratch,
  type SearchIndex,
  type VocabEntry,
} from './search-index.js';
import { spelledOut } from './short-forms.js';
import { contentWords, stem, valueWords } from './text.js';
import { correctToEnglish, correctTypo } from './typos.js';
import { dotAt } from './vectors.js';

/** Tunables, in one place so the benchmark can report what it ran with. */
export const QUERY_TUNING = {
  /** Relative weight of a fuzzy (typo) match, and MiniSearch's fuzziness for words of 5+ letters. */
  fuzzyWeight: 0.6,
  fuzzy: 0.2,
  /** BM25+ parameters (MiniSearch's defaults, which the ranking used before it had its own postings). */
  bm25K: 1.2,
  bm25B: 0.7,
  bm25D: 0.5,
  /** Blend of the per-candidate signals into the relevance. */
  lexicalWeight: 0.45,
  softWeight: 0.6,
  meaningWeight: 0.3,
  /** Cosine of mean vectors mapped linearly from [meaningFloor, meaningCeil] onto [0, 1]. */
  meaningFloor: 0.35,
  meaningCeil: 0.85,
  /** Soft coverage: similarity below this gives no credit; credit = softScale * rescaled^softPower. */
  softMinSimilarity: 0.3,
  softScale: 0.9,
  softPower: 2,
  /** Weight of a query word the catalogue does not contain, relative to the rarest catalogue word. */
  unknownWordWeight: 1,
  /** Weight of focus (share of the endpoint's slug and tag words the query asks for) in the blend. */
  focusWeight: 0.1,
  focusPower: 1,
  /** Smallest soft credit worth giving. */
  softMinCredit: 0.1,
  /** Most similar catalogue stems considered per query word for soft coverage. */
  softNeighbours: 16,
  /** Matches below this relevance are a faint likeness, not results (they are not returned). */
  minRelevance: 0.12,
  /** Matches below this share of the best match's relevance are not returned either. */
  relativeFloor: 0.2,
  /** Query words found in more than this share of endpoints (and in more than lexicalSkipMinDocs) are
   *  not scored by BM25: on a large catalogue they weigh nothing and cost the most. */
  lexicalMaxDocShare: 0.2,
  lexicalSkipMinDocs: 500,
  /** Exponent of the coverage that scales the relative BM25 score. */
  lexicalCoveragePower: 0.5,
};

export interface QueryWord {
  word: string;
  stem: string;
  /** IDF in the catalogue times SIF (general-English commonness); unknown words get the top IDF. */
  weight: number;
  /** Row in the vocabulary vectors, or the word's own vector. */
  vector: Float32Array | undefined;
}

export interface RelevanceHit {
  index: number;
  relevance: number;
}

/**
 * A query's matches: slot `slots[k]` with relevance `relevance[k]`. Two arrays of exact length, not an
 * object per hit: at 10,000 endpoints a query has ~1,100 hits, and their objects were most of the
 * garbage a ranking left (~90 of 155 KB).
 */
export interface Hits {
  slots: Int32Array;
  relevance: Float64Array;
  /** When the query's sentence vector was fused in: how far its closest endpoint in meaning stands out
   *  from the catalogue (`fuseRelevance`; read by `matchStrength`). */
  standOut?: number;
}

export const NO_HITS: Hits = { slots: new Int32Array(0), relevance: new Float64Array(0) };

/**
 * Hits from `count` scored positions: position k (slot `slotAt(k)`, relevance `relevanceAt(k)`) is kept
 * when its relevance is at least `floor`; order is kept. Counted first, so the arrays are exact.
 */
export function collectHits(
  count: number,
  slotAt: (k: number) => number,
  relevanceAt: (k: number) => number,
  floor: number,
): Hits {
  let kept = 0;
  for (let k = 0; k < count; k++) if (relevanceAt(k) >= floor) kept++;
  const hits: Hits = { slots: new Int32Array(kept), relevance: new Float64Array(kept) };
  for (let k = 0, j = 0; k < count; k++) {
    const relevance = relevanceAt(k);
    if (relevance < floor) continue;
    hits.slots[j] = slotAt(k);
    hits.relevance[j++] = relevance;
  }
  return hits;
}

/** The hits whose relevance is at least `min`, in the same order. */
export function hitsAtLeast(hits: Hits, min: number): Hits {
  return collectHits(
    hits.slots.length,
    (k) => hits.slots[k] as number,
    (k) => hits.relevance[k] as number,
    min,
  );
}

/** Position in `hits` of the most relevant hit (the lower slot of equals); -1 without hits. */
export function bestHit(hits: Hits): number {
  let top = -1;
  for (let k = 0; k < hits.slots.length; k++) {
    const r = hits.relevance[k] as number;
    const best = hits.relevance[top] as number;
    if (top < 0 || r > best || (r === best && (hits.slots[k] as number) < (hits.slots[top] as number)))
      top = k;
  }
  return top;
}

/** The hits as objects, in the same order (evaluation and tests). */
export function hitList(hits: Hits): RelevanceHit[] {
  return Array.from(hits.slots, (index, k) => ({ index, relevance: hits.relevance[k] as number }));
}

type Neighbour = { entry: VocabEntry; sim: number };

const NEIGHBOUR_CACHE_MAX = 20_000;

export function analyse(index: SearchIndex, query: string): QueryWord[] {
  const n = Math.max(index.live, 1);
  const unknownIdf = Math.log(1 + (n + 0.5) / 0.5);
  const dims = index.vectors.dims;
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const raw of askedWords(index, query)) {
    let word = raw;
    let s = stem(word);
    // A word the catalogue lacks and general English barely knows is most likely a typo.
    if (!index.vocab.has(s) && index.vectors.sif(word) > 0.99) {
      const fixed = correctTypo(index, word) ?? correctToEnglish(index, word);
      if (fixed) {
        word = fixed;
        s = stem(fixed);
      }
    }
    if (seen.has(s)) continue;
    seen.add(s);
    const entry = index.vocab.get(s);
    const own = index.vectors.get(word);
    const row =
      entry && entry.row >= 0
        ? index.vocabVectors.subarray(entry.row * dims, (entry.row + 1) * dims)
        : undefined;
    out.push({
      word,
      stem: s,
      weight:
        (entry ? idfOf(index, entry) : unknownIdf * QUERY_TUNING.unknownWordWeight) * index.vectors.sif(word),
      vector: own ?? row,
    });
  }
  return out;
}

/**
 * The query's content words, a short form the catalogue lacks spelled out ("bank hols" -> "bank
 * holidays"); not inside a value ("img" of img.example.com stays as it is).
 */
function askedWords(index: SearchIndex, query: string): string[] {
  const out: string[] = [];
  let values: Set<string> | undefined;
  for (const word of contentWords(query)) {
    const long = spelledOut(word);
    if (long === undefined || (index.vocab.get(stem(word))?.docs.length ?? 0) > 0) {
      out.push(word);
      continue;
    }
    values ??= valueWords(query);
    if (values.has(word)) out.push(word);
    else out.push(...contentWords(long));
  }
  return out;
}

/**
 * Catalogue stems similar in meaning to a query word, best first (the `softNeighbours` most similar with
 * a cosine of at least `softMinSimilarity`; equal cosines in row order). Memoised per index: vocabulary
 * rows are only ever appended, so after a catalogue change a memoised list is completed by scanning the
 * rows added since, and stems no live endpoint uses any more are left out when read.
 */
export function neighboursOf(index: SearchIndex, w: QueryWord): Neighbour[] {
  if (!w.vector) return [];
  const rows = index.vectorVocab.length;
  const cached = index.neighbourCache.get(w.word);
  if (cached && cached.rows === rows && cached.clean) return cached.list;
  const best = new Best(QUERY_TUNING.softNeighbours);
  const usable = (entry: VocabEntry) => entry.stem !== w.stem && entry.docs.length > 0;
  for (const n of cached?.list ?? []) if (usable(n.entry)) best.offer(n.entry, n.sim);
  scanRows(index, w, cached ? cached.rows : 0, rows, best, usable);
  const list = best.items;
  if (index.neighbourCache.size >= NEIGHBOUR_CACHE_MAX) index.neighbourCache.clear();
  index.neighbourCache.set(w.word, { rows, list, clean: true });
  return list;
}

/** The k most similar neighbours offered, best first; an equal one offered later goes after. */
class Best {
  readonly items: Neighbour[] = [];
  constructor(private readonly k: number) {}
  /** The similarity an offer must exceed to enter (-Infinity while there is room). */
  get bar(): number {
    return this.items.length < this.k ? Number.NEGATIVE_INFINITY : (this.items[this.k - 1] as Neighbour).sim;
  }
  offer(entry: VocabEntry, sim: number) {
    if (this.k <= 0 || sim <= this.bar) return;
    let at = this.items.length;
    while (at > 0 && (this.items[at - 1] as Neighbour).sim < sim) at--;
    this.items.splice(at, 0, { entry, sim });
    if (this.items.length > this.k) this.items.pop();
  }
}

/**
 * Offers rows [from, to) with a cosine of at least `softMinSimilarity`. A first pass in int8 bounds every
 * row's cosine from above (row-bounds.ts); the rows are then taken by that bound, best first, and their
 * exact cosines computed until no row left can reach the list. The rows that can make it are offered in
 * the order of a full scan's stable sort (cosine, then row), so the list is the one a plain float scan of
 * every row gives, to the last bit of each similarity.
 */
function scanRows(
  index: SearchIndex,
  w: QueryWord,
  from: number,
  to: number,
  best: Best,
  usable: (entry: VocabEntry) => boolean,
) {
  const dims = index.vectors.dims;
  const vv = index.vocabVectors;
  const q = w.vector as Float32Array;
  const min = QUERY_TUNING.softMinSimilarity;
  // The bound's own rounding is ~1e-15; the margin keeps a row at the bar from being dropped.
  const margin = 1e-9;
  const bounds = index.vocabRows.upperBounds(q, from, to);
  // Rows that may reach the list, taken by their bound, best first.
  const rows: number[] = [];
  const floor = Math.max(min, best.bar) - margin;
  for (let r = from; r < to; r++) if ((bounds[r] as number) >= floor) rows.push(r);
  // A comparator returning -1/0/1, not a difference of doubles: the sort calls it ~10 times per row and
  // a double result is a heap allocation each time (45 KB of garbage per query at 10,000 endpoints).
  rows.sort((a, b) => {
    const x = bounds[a] as number;
    const y = bounds[b] as number;
    return x > y ? -1 : x < y ? 1 : 0;
  });
  const found = new Best(QUERY_TUNING.softNeighbours);
  const exact: Array<{ row: number; entry: VocabEntry; sim: number }> = [];
  for (const row of rows) {
    if ((bounds[row] as number) + margin < Math.max(min, best.bar, found.bar)) break;
    const entry = index.vectorVocab[row] as VocabEntry;
    // A stem no live endpoint uses any more keeps its row until the next full build: not a neighbour.
    if (!usable(entry)) continue;
    const sim = dotAt(q, vv, row * dims);
    if (sim < min) continue;
    found.offer(entry, sim);
    exact.push({ row, entry, sim });
  }
  exact.sort((a, b) => b.sim - a.sim || a.row - b.row);
  for (const n of exact) best.offer(n.entry, n.sim);
}

function queryVector(index: SearchIndex, words: QueryWord[]): Float32Array | undefined {
  const dims = index.vectors.dims;
  const v = new Float32Array(dims);
  let norm = 0;
  for (const w of words) {
    if (!w.vector) continue;
    for (let d = 0; d < dims; d++) v[d] = (v[d] as number) + w.weight * (w.vector[d] as number);
  }
  for (let d = 0; d < dims; d++) norm += (v[d] as number) ** 2;
  if (norm === 0) return undefined;
  norm = Math.sqrt(norm);
  for (let d = 0; d < dims; d++) v[d] = (v[d] as number) / norm;
  return v;
}

/** Relevance of every endpoint that matches the query at least `minRelevance`, best first. */
export function scoreQuery(
  index: SearchIndex,
  query: string,
  allowed?: (i: number) => boolean,
  minRelevance = QUERY_TUNING.minRelevance,
): RelevanceHit[] {
  return hitList(matchQuery(index, query, allowed, minRelevance)).sort(
    (a, b) => b.relevance - a.relevance || a.index - b.index,
  );
}

/**
 * Relevance of every endpoint that matches the query at least `minRelevance`, in slot order.
 * `allowed` restricts the candidates (filters are hard cutoffs on the matches). `exhaustive` computes
 * every candidate's relevance, skipping none by its bounds: the same hits, slower (tests compare).
 */
export function matchQuery(
  index: SearchIndex,
  query: string,
  allowed?: (i: number) => boolean,
  minRelevance = QUERY_TUNING.minRelevance,
  exhaustive = false,
): Hits {
  const t = QUERY_TUNING;
  const words = analyse(index, query);
  if (words.length === 0) return NO_HITS;
  const near = words.map((w) => neighboursOf(index, w));
  const own = new Set(words.map((w) => w.stem));

  // BM25 over the query's own stems; words of similar meaning count through soft coverage below
  // (adding them to the BM25 query as well measured no better, and costs time on large catalogues).
  // Words in a large share of the catalogue carry almost no BM25 weight but cost the most to score:
  // they are left to soft coverage (as Lucene's common-terms query does).
  const skipAbove = Math.max(t.lexicalMaxDocShare * index.live, t.lexicalSkipMinDocs);
  const terms = new Set(
    words.filter((w) => (index.vocab.get(w.stem)?.docs.length ?? 0) <= skipAbove).map((w) => w.stem),
  );

  const n = index.endpoints.length;
  const q = words.length;
  const scratch = scratchFor(index, n, n * q);
  const { lexical, soft, candidate: isCandidate, credit } = scratch;
  const credited: number[] = [];
  let count = 0;
  try {
    const mark = (doc: number) => {
      if (isCandidate[doc] === 0) {
        isCandidate[doc] = 1;
        count++;
      }
    };

    const maxScore = scoreLexical(
      index.lexical,
      terms,
      {
        boost: LEXICAL_BOOSTS,
        // Only a word the catalogue does not contain may be a misspelling of one it does.
        fuzzy: (term) => (term.length >= 5 && !index.vocab.has(term) ? t.fuzzy : false),
        fuzzyWeight: t.fuzzyWeight,
        k: t.bm25K,
        b: t.bm25B,
        d: t.bm25D,
      },
      lexical,
      mark,
    );

    // Soft coverage: each query word is credited by the best word of the endpoint that means the same
    // (1 for the word itself, less for a similar one), scaled by the field it appears in.
    const give = (entry: VocabEntry, qi: number, value: number) => {
      const { docs, fieldFactor } = entry;
      for (let k = 0; k < docs.length; k++) {
        const doc = docs[k] as number;
        const v = value * (fieldFactor[k] as number);
        const cell = doc * q + qi;
        if (v > (soft[cell] as number)) soft[cell] = v;
        mark(doc);
      }
    };
    // Credit of each catalogue stem (by id) as an answer to some query word (for the endpoint-side
    // focus below): the best one given.
    const setCredit = (entry: VocabEntry, value: number) => {
      if (credit[entry.id] === 0) credited.push(entry.id);
      if (value > (credit[entry.id] as number)) credit[entry.id] = value;
    };
    words.forEach((w, qi) => {
      const exact = index.vocab.get(w.stem);
      if (exact) {
        give(exact, qi, 1);
        setCredit(exact, 1);
      }
      // Another query word's own stem is credited to that word, not counted twice.
      const similar = (near[qi] ?? []).filter((x) => !own.has(x.entry.stem)).slice(0, t.softNeighbours);
      for (const { entry, sim } of similar) {
        const credit = t.softScale * ((sim - t.softMinSimilarity) / (1 - t.softMinSimilarity)) ** t.softPower;
        // A credit this small changes no ranking, but would make thousands of endpoints candidates.
        if (credit >= t.softMinCredit) {
          give(entry, qi, credit);
          setCredit(entry, credit);
        }
      }
    });

    // Candidates in slot order: the passes below then read the arrays front to back.
    const candidates = scratch.candidates.subarray(0, count);
    for (let i = 0, c = 0; c < count; i++) if (isCandidate[i] === 1) candidates[c++] = i;
    const weights = Float64Array.from(words, (w) => w.weight);
    const weightTotal = weights.reduce((s, w) => s + w, 0);
    const blendTotal = t.lexicalWeight + t.softWeight + t.meaningWeight + t.focusWeight;
    const focusMax = t.focusWeight / blendTotal;
    const qv = queryVector(index, words);
    // The exact cosines run in WebAssembly, on the query set here (float-rows.ts).
    const dv = index.docVectors;
    if (qv) dv.setQuery(qv);
    // Pass 1: the cheap part of every candidate's relevance (BM25 and coverage, no vectors).
    // Written before read: reused without zeroing.
    const partial = scratch.partial;
    let bestPartial = 0;
    let bestPartialAt = -1;
    for (let c = 0; c < candidates.length; c++) {
      const i = candidates[c] as number;
      if (allowed && !allowed(i)) {
        partial[c] = -1;
        continue;
      }
      let softSum = 0;
      const row = i * q;
      for (let qi = 0; qi < q; qi++) softSum += (weights[qi] as number) * (soft[row + qi] as number);
      const lexRel = maxScore > 0 ? (lexical[i] as number) / maxScore : 0;
      const coverage = softSum / weightTotal;
      // BM25 is relative to the best match; scaling it by coverage keeps one shared word from looking complete.
      partial[c] =
        (t.lexicalWeight * lexRel * coverage ** t.lexicalCoveragePower + t.softWeight * coverage) /
        blendTotal;
      if ((partial[c] as number) > bestPartial) {
        bestPartial = partial[c] as number;
        bestPartialAt = c;
      }
    }
    // Pass 2: add focus and meaning where the result can still reach the floor (absolute, and relative
    // to the best: the best relevance is at least bestPartial, so this skips no endpoint that could pass).
    const meaningMax = t.meaningWeight / blendTotal;
    const bound = Math.max(minRelevance, t.relativeFloor * bestPartial);
    const keyTable = index.keys;
    const prune = meaningMax > 0 && t.meaningCeil > t.meaningFloor;
    // Upper bounds of every slot's cosine, from the int8 copy (row-bounds.ts): computed once, when the
    // first candidate that needs some meaning to reach the bound asks.
    let cosineBounds: Float64Array | undefined;
    const scoredAt = scratch.scoredAt;
    const scoredRelevance = scratch.scoredRelevance;
    /** Candidate c's relevance, or -1 when it is skipped as below `bound` (it could never be returned). */
    const relevanceOf = (c: number, bound: number): number => {
      const p = partial[c] as number;
      if (p < 0 || p + meaningMax + focusMax < bound) return -1;
      const i = candidates[c] as number;
      // Focus: the share of the endpoint's own key words (slug, tags) that the query asks for.
      let focus = 0;
      const keyCount = keyTable.count[i] as number;
      if (focusMax > 0 && keyCount > 0) {
        const from = keyTable.start[i] as number;
        for (let k = from; k < from + keyCount; k++) focus += credit[keyTable.pool[k] as number] as number;
        focus = (focus / keyCount) ** t.focusPower;
      }
      // The cosine is the costly part: skipped where even a perfect meaning could not reach the bound
      // (the margin keeps rounding from ever skipping an endpoint that passes).
      if (p + meaningMax + focusMax * focus + 1e-9 < bound) return -1;
      let meaning = 0;
      if (qv) {
        // The cosine this candidate needs to reach the bound, and skipped when its upper bound falls
        // short. (None when the candidate reaches the bound without meaning: it needs its exact cosine.)
        // A skipped candidate's relevance is below the bound, so it could never be returned: the hits
        // are the same as without the skip, bit for bit.
        const short = bound - p - focusMax * focus;
        if (prune && short > 0) {
          const need = t.meaningFloor + (short / meaningMax) * (t.meaningCeil - t.meaningFloor);
          cosineBounds ??= index.docRows.upperBounds(qv, 0, n);
          if ((cosineBounds[i] as number) + 1e-9 < need) return -1;
        }
        const cos = dv.dot(i);
        meaning = Math.min(1, Math.max(0, (cos - t.meaningFloor) / (t.meaningCeil - t.meaningFloor)));
      }
      return p + meaningMax * meaning + focusMax * focus;
    };
    // The best relevance so far raises the bound as the pass goes (the final floor is relativeFloor × the
    // best, so a candidate below relativeFloor × any relevance seen is never returned), and it starts
    // from the candidate with the best partial: about 40 % of the exact cosines were for candidates that
    // only the final floor turned away (docs/discovery-history.md, "Not done").
    const skipBelow = exhaustive ? Number.NEGATIVE_INFINITY : bound;
    let best = bestPartialAt < 0 ? 0 : Math.max(0, relevanceOf(bestPartialAt, skipBelow));
    let raised = Math.max(skipBelow, t.relativeFloor * best);
    let scored = 0;
    for (let c = 0; c < candidates.length; c++) {
      const relevance = relevanceOf(c, raised);
      if (relevance < 0) continue;
      if (relevance > best) {
        best = relevance;
        if (!exhaustive) raised = Math.max(bound, t.relativeFloor * best);
      }
      scoredAt[scored] = candidates[c] as number;
      scoredRelevance[scored] = relevance;
      scored++;
    }
    const floor = Math.max(minRelevance, t.relativeFloor * best, Number.MIN_VALUE);
    return collectHits(
      scored,
      (k) => scoredAt[k] as number,
      (k) => scoredRelevance[k] as number,
      floor,
    );
  } finally {
    isCandidate.fill(0, 0, n);
    lexical.fill(0, 0, n);
    soft.fill(0, 0, n * q);
    for (const id of credited) credit[id] = 0;
  }
}

/** The index's per-query arrays, grown (with room to spare) to `slots` slots and `cells` soft cells. */
function scratchFor(index: SearchIndex, slots: number, cells: number): QueryScratch {
  const s = index.scratch;
  if (s.lexical.length < slots) {
    const capacity = Math.ceil(slots * 1.25);
    s.lexical = new Float32Array(capacity);
    s.candidate = new Uint8Array(capacity);
    s.candidates = new Int32Array(capacity);
    s.partial = new Float64Array(capacity);
    s.scoredAt = new Int32Array(capacity);
    s.scoredRelevance = new Float64Array(capacity);
  }
  if (s.soft.length < cells) s.soft = new Float32Array(Math.ceil(cells * 1.25));
  if (s.credit.length < index.nextStemId) s.credit = new Float64Array(Math.ceil(index.nextStemId * 1.25));
  return s;
}
