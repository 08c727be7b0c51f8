// Typo correction of query words: against the catalogue's words, then against frequent English words,
// by edit distance.
import { type SearchIndex, surfaceWords } from './search-index.js';

/** Most memoised corrections per index (cleared when full). */
const TYPO_CACHE_MAX = 20_000;

// Row buffers reused across calls: correction compares one query word with thousands of words.
let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

/** Damerau-Levenshtein (optimal string alignment) distance, giving up above `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  const m = a.length;
  const n = b.length;
  if (Math.abs(m - n) > limit) return limit + 1;
  if (rowA.length <= n) {
    rowA = new Int32Array(n + 1);
    rowB = new Int32Array(n + 1);
    rowC = new Int32Array(n + 1);
  }
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      const cost = ai === bj ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        v = Math.min(v, (prev2[j - 2] as number) + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    const spare = prev2;
    prev2 = prev;
    prev = cur;
    cur = spare;
  }
  return prev[n] as number;
}

/** Closest catalogue word within one edit (two for long words), for a query word nobody knows. */
export function correctTypo(index: SearchIndex, word: string): string | undefined {
  if (word.length < 4) return undefined;
  const memo = index.typoCache.get(word);
  if (memo !== undefined) return memo || undefined;
  const limit = word.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of surfaceWords(index)) {
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const d = editDistance(word, candidate, limit);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (index.typoCache.size >= TYPO_CACHE_MAX) index.typoCache.clear();
  index.typoCache.set(word, best ?? '');
  return best;
}

/**
 * For a misspelt word the catalogue does not use either ("sunscren"): the most frequent English word of
 * the vector vocabulary within one edit (two for 8+ letters) that is far more common than the word
 * itself (a noisy-channel choice with a Zipf prior). Same first letter only: it keeps the search cheap,
 * and first letters are rarely mistyped.
 */
export function correctToEnglish(index: SearchIndex, word: string): string | undefined {
  if (word.length < 5 || !/^\p{L}+$/u.test(word)) return undefined;
  const key = `en:${word}`;
  const memo = index.typoCache.get(key);
  if (memo !== undefined) return memo || undefined;
  const limit = word.length >= 8 ? 2 : 1;
  const ownRank = index.vectors.rank(word) ?? Number.POSITIVE_INFINITY;
  let best: string | undefined;
  for (const candidate of index.vectors.wordsStartingWith(word.charAt(0))) {
    const rank = index.vectors.rank(candidate) ?? Number.POSITIVE_INFINITY;
    // Listed most frequent first: past a tenth of the word's own rank nothing can qualify.
    if (rank * 10 >= ownRank) break;
    if (Math.abs(candidate.length - word.length) > limit) continue;
    if (editDistance(word, candidate, limit) <= limit) {
      best = candidate;
      break;
    }
  }
  if (index.typoCache.size >= TYPO_CACHE_MAX) index.typoCache.clear();
  index.typoCache.set(key, best ?? '');
  return best;
}
