// How well the best match answers the query: the evidence behind `meta.match_quality`. A query with no
// right answer in the catalogue still has a best match (the ranking always finds the closest thing), so
// its relevance alone does not tell "nothing fits" from "this fits"; what does is whether the words that
// carry the query's meaning are found in that endpoint at all.
import { analyse, neighboursOf, QUERY_TUNING } from './query.js';
import type { SearchIndex, VocabEntry } from './search-index.js';

export interface MatchEvidence {
  /** Weighted share of the query's words the endpoint contains (or a word of similar meaning), in [0, 1]. */
  coverage: number;
  /** Weight share of the heaviest query word the endpoint does not cover (0 when all are covered). */
  uncovered: number;
}

function contains(entry: VocabEntry, doc: number): boolean {
  // `docs` is ascending (endpoints are indexed in order).
  let lo = 0;
  let hi = entry.docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = entry.docs[mid] as number;
    if (v === doc) return true;
    if (v < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Evidence that endpoint `doc` answers `query`: per query word, the best credit the endpoint gives it. */
export function matchEvidence(index: SearchIndex, query: string, doc: number): MatchEvidence {
  const t = QUERY_TUNING;
  const words = analyse(index, query);
  const total = words.reduce((s, w) => s + w.weight, 0);
  if (words.length === 0 || total <= 0) return { coverage: 0, uncovered: 1 };
  let covered = 0;
  let uncovered = 0;
  for (const w of words) {
    let credit = 0;
    const exact = index.vocab.get(w.stem);
    if (exact && contains(exact, doc)) credit = 1;
    else {
      for (const { entry, sim } of neighboursOf(index, w)) {
        if (!contains(entry, doc)) continue;
        credit = Math.max(
          credit,
          t.softScale * ((sim - t.softMinSimilarity) / (1 - t.softMinSimilarity)) ** t.softPower,
        );
      }
    }
    covered += w.weight * credit;
    const gap = (w.weight * (1 - credit)) / total;
    if (gap > uncovered) uncovered = gap;
  }
  return { coverage: covered / total, uncovered };
}
