// Query side of the ranking: analyse the query (content words, typo correction, expansion to catalogue
// words of similar meaning), score candidates lexically (MiniSearch BM25+) and by meaning (cosine of mean
// word vectors), and turn both into one relevance in [0, 1].
import { FIELD_WEIGHTS, type SearchIndex, type VocabEntry } from './search-index.js';
import { contentWords, stem } from './text.js';
import { dot, normalise } from './vectors.js';

/** Tunables, in one place so the benchmark can report what it ran with. */
export const QUERY_TUNING = {
  /** Catalogue words at least this similar (cosine) to a query word are added to the query. */
  expansionMinSimilarity: 0.55,
  expansionsPerWord: 4,
  /** Weight of an expansion term relative to the query word it comes from, times its similarity. */
  expansionWeight: 0.6,
  /** Relative weight of a fuzzy (typo) match. */
  fuzzyWeight: 0.6,
  fuzzy: 0.2,
  /** Blend of the per-candidate signals into the ranking relevance. */
  lexicalWeight: 0.45,
  coverageWeight: 0.25,
  meaningWeight: 0.3,
  /** Cosine of mean vectors mapped linearly from [meaningFloor, meaningCeil] onto [0, 1]. */
  meaningFloor: 0.35,
  meaningCeil: 0.85,
  /** 1 = query words weigh IDF x SIF (general-English commonness), 0 = IDF only. */
  sifQuery: 1,
  /** Soft coverage: similarity below this gives no credit; credit = softScale * rescaled^softPower. */
  softMinSimilarity: 0.4,
  softScale: 0.9,
  softPower: 1,
  softWeight: 0.3,
};

interface QueryWord {
  word: string;
  stem: string;
  /** IDF in the catalogue; unknown words get the highest IDF (they are specific and unmatched). */
  idf: number;
  vector: Float32Array | undefined;
}

interface QueryTerm {
  term: string;
  /** Index of the query word the term stands for. */
  from: number;
  weight: number;
  original: boolean;
}

export interface RelevanceHit {
  index: number;
  relevance: number;
}

function maxIdf(index: SearchIndex): number {
  const n = Math.max(index.endpoints.length, 1);
  return Math.log(1 + (n + 0.5) / 0.5);
}

/** Closest catalogue word within one edit (two for long words), for a query word without a vector. */
function correctTypo(index: SearchIndex, word: string): string | undefined {
  if (word.length < 4) return undefined;
  const limit = word.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of index.surfaceWords) {
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const d = editDistance(word, candidate, limit);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Damerau-Levenshtein (optimal string alignment) distance, giving up above `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = new Array<number>(n + 1).fill(0);
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, (prev2[j - 2] as number) + 1);
      cur[j] = v;
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[n] as number;
}

function analyse(index: SearchIndex, query: string): QueryWord[] {
  const top = maxIdf(index);
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const raw of contentWords(query)) {
    let word = raw;
    let s = stem(word);
    // A word the catalogue lacks and general English barely knows is most likely a typo.
    if (!index.vocab.has(s) && index.vectors.sif(word) > 0.99) {
      const fixed = correctTypo(index, word);
      if (fixed) {
        word = fixed;
        s = stem(fixed);
      }
    }
    if (seen.has(s)) continue;
    seen.add(s);
    const entry = index.vocab.get(s);
    const sif = QUERY_TUNING.sifQuery ? index.vectors.sif(word) : 1;
    out.push({
      word,
      stem: s,
      idf: (entry?.idf ?? top) * sif,
      vector: index.vectors.get(word) ?? entry?.vector,
    });
  }
  return out;
}

type Neighbours = Array<Array<{ entry: VocabEntry; sim: number }>>;

/** Catalogue words similar in meaning to each query word (best first, at least softMinSimilarity). */
function neighbours(index: SearchIndex, words: QueryWord[]): Neighbours {
  const own = new Set(words.map((w) => w.stem));
  return words.map((w) => {
    if (!w.vector) return [];
    const found: Array<{ entry: VocabEntry; sim: number }> = [];
    for (const entry of index.vectorVocab) {
      if (own.has(entry.stem)) continue;
      const sim = dot(w.vector, entry.vector as Float32Array);
      if (sim >= QUERY_TUNING.softMinSimilarity) found.push({ entry, sim });
    }
    return found.sort((a, b) => b.sim - a.sim);
  });
}

function expand(words: QueryWord[], near: Neighbours): QueryTerm[] {
  const t = QUERY_TUNING;
  const terms: QueryTerm[] = words.map((w, from) => ({ term: w.stem, from, weight: 1, original: true }));
  near.forEach((list, from) => {
    const best = list.filter((n) => n.sim >= t.expansionMinSimilarity).slice(0, t.expansionsPerWord);
    for (const { entry, sim } of best) {
      terms.push({ term: entry.stem, from, weight: t.expansionWeight * sim, original: false });
    }
  });
  return terms;
}

/**
 * Soft coverage of every endpoint: the weighted share of query words it contains, where a word of
 * similar meaning counts by its similarity and a word in a minor field counts less. Returns n x words.
 */
function softCoverage(index: SearchIndex, words: QueryWord[], near: Neighbours): Float32Array {
  const t = QUERY_TUNING;
  const q = words.length;
  const credit = new Float32Array(index.endpoints.length * q);
  const give = (entry: VocabEntry, qi: number, value: number) => {
    for (let k = 0; k < entry.docs.length; k++) {
      const cell = (entry.docs[k] as number) * q + qi;
      const v = value * (entry.fieldFactor[k] as number);
      if (v > (credit[cell] as number)) credit[cell] = v;
    }
  };
  words.forEach((w, qi) => {
    const exact = index.vocab.get(w.stem);
    if (exact) give(exact, qi, 1);
    for (const { entry, sim } of near[qi] ?? []) {
      give(entry, qi, t.softScale * ((sim - t.softMinSimilarity) / (1 - t.softMinSimilarity)) ** t.softPower);
    }
  });
  return credit;
}

function queryVector(index: SearchIndex, words: QueryWord[]): Float32Array | undefined {
  const dims = index.vectors.dims;
  const v = new Float32Array(dims);
  let any = false;
  for (const w of words) {
    if (!w.vector) continue;
    any = true;
    for (let d = 0; d < dims; d++) v[d] = (v[d] as number) + w.idf * (w.vector[d] as number);
  }
  return any ? normalise(v) : undefined;
}

/**
 * Relevance of every endpoint that matches the query at all, best first. `allowed` restricts the
 * candidates (filters are applied to the matches, as hard cutoffs).
 */
export function scoreQuery(
  index: SearchIndex,
  query: string,
  allowed?: (i: number) => boolean,
): RelevanceHit[] {
  const t = QUERY_TUNING;
  const words = analyse(index, query);
  if (words.length === 0) return [];
  const near = neighbours(index, words);
  const terms = expand(words, near);
  const soft = softCoverage(index, words, near);
  const byTerm = new Map<string, QueryTerm>();
  for (const q of terms) if (!byTerm.has(q.term)) byTerm.set(q.term, q);
  const idfTotal = words.reduce((s, w) => s + w.idf, 0);

  const lexical = new Map<number, { score: number; coverage: number }>();
  const results = index.mini.search(
    { queries: [...byTerm.keys()], combineWith: 'OR' },
    {
      boost: FIELD_WEIGHTS,
      processTerm: (term) => term,
      tokenize: (text) => [text],
      boostTerm: (term) => byTerm.get(term)?.weight ?? 1,
      fuzzy: (term) => (byTerm.get(term)?.original && term.length >= 5 ? t.fuzzy : false),
      weights: { fuzzy: t.fuzzyWeight, prefix: 0.3 },
      ...(allowed ? { filter: (r) => allowed(r.id as number) } : {}),
    },
  );
  let maxScore = 0;
  for (const r of results) {
    // Coverage: the IDF share of the query words this endpoint answers (an expansion counts partly).
    const covered = new Array<number>(words.length).fill(0);
    for (const qt of r.queryTerms) {
      const q = byTerm.get(qt);
      if (!q) continue;
      const exact = r.terms.includes(qt);
      const credit = q.original ? (exact ? 1 : t.fuzzyWeight) : q.weight;
      covered[q.from] = Math.max(covered[q.from] as number, credit);
    }
    const coverage = words.reduce((s, w, i) => s + w.idf * (covered[i] as number), 0) / idfTotal;
    lexical.set(r.id as number, { score: r.score, coverage });
    maxScore = Math.max(maxScore, r.score);
  }

  const qv = queryVector(index, words);
  const dims = index.vectors.dims;
  const hits: RelevanceHit[] = [];
  const n = index.endpoints.length;
  for (let i = 0; i < n; i++) {
    const lex = lexical.get(i);
    let softSum = 0;
    for (let qi = 0; qi < words.length; qi++)
      softSum += (words[qi] as QueryWord).idf * (soft[i * words.length + qi] as number);
    const softCov = softSum / idfTotal;
    let meaning = 0;
    if (qv) {
      const cos = dot(qv, index.docVectors.subarray(i * dims, (i + 1) * dims));
      meaning = Math.min(1, Math.max(0, (cos - t.meaningFloor) / (t.meaningCeil - t.meaningFloor)));
    }
    if (!lex && meaning <= 0 && softCov <= 0) continue;
    if (!lex && allowed && !allowed(i)) continue;
    const lexRel = lex && maxScore > 0 ? lex.score / maxScore : 0;
    const relevance =
      t.lexicalWeight * lexRel * (lex?.coverage ?? 0) ** 0.5 +
      t.coverageWeight * (lex?.coverage ?? 0) +
      t.meaningWeight * meaning +
      t.softWeight * softCov;
    hits.push({ index: i, relevance });
  }
  hits.sort((a, b) => b.relevance - a.relevance);
  return hits;
}
