// Field-aware BM25 (BM25F, Robertson & Zaragoza 2009) as a stand-in for the index's MiniSearch, for the
// evaluation only (issue 22, direction 3): term frequencies are length-normalised per field, weighted
// and summed before one saturation, instead of MiniSearch's sum of per-field BM25 scores. It replaces
// `index.mini.search` on a bench index, so the rest of the ranking runs unchanged. Field texts are
// analysed as `search-index.ts` does (same fields, stems; the category joins the provider text).
import type { SearchIndex } from '../src/modules/discovery/ranking/search-index.js';
import { contentWords, stem } from '../src/modules/discovery/ranking/text.js';
import type { CatalogueEndpoint } from '../src/modules/discovery/ranking/types.js';

const FIELDS = ['description', 'tags', 'slug', 'name', 'provider'] as const;
type Field = (typeof FIELDS)[number];

const splitName = (text: string) => text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_./]+/g, ' ');

function fieldStems(e: CatalogueEndpoint): Record<Field, string[]> {
  const stems = (text: string) => contentWords(text).map(stem);
  const category = e.category.replace(/_/g, ' ').replace(/\bai ml\b/, 'ai machine learning');
  return {
    description: stems(e.description),
    tags: stems(e.tags.map(splitName).join(' ')),
    slug: stems(splitName(e.slug)),
    name: stems(splitName(e.providerName)),
    provider: stems(`${e.providerDescription} ${e.providerTags.map(splitName).join(' ')} ${category}`),
  };
}

export interface Bm25fOptions {
  weights: Record<Field, number>;
  /** Length normalisation per field (0 = none, 1 = full). */
  b: Record<Field, number>;
  k1: number;
}

/**
 * Replaces `index.mini` by a BM25F scorer over the same endpoints. Terms the catalogue lacks (possible
 * misspellings) are still scored by the original MiniSearch (fuzzy), whose scores are added.
 */
export function useBm25f(index: SearchIndex, options: Bm25fOptions): void {
  const original = index.mini;
  const docs = index.endpoints.map(fieldStems);
  const avg = Object.fromEntries(
    FIELDS.map((f) => [f, docs.reduce((s, d) => s + d[f].length, 0) / Math.max(docs.length, 1)]),
  ) as Record<Field, number>;
  // term -> doc -> weighted, length-normalised frequency
  const postings = new Map<string, Map<number, number>>();
  docs.forEach((d, id) => {
    for (const f of FIELDS) {
      const norm = 1 - options.b[f] + options.b[f] * (d[f].length / (avg[f] || 1));
      for (const s of d[f]) {
        let p = postings.get(s);
        if (!p) {
          p = new Map();
          postings.set(s, p);
        }
        p.set(id, (p.get(id) ?? 0) + options.weights[f] / norm);
      }
    }
  });
  const n = docs.length;
  const search = (query: { queries: string[] }, searchOptions: Record<string, unknown>) => {
    const scores = new Map<number, number>();
    const unknown: string[] = [];
    for (const term of query.queries) {
      const p = postings.get(term);
      if (!p) {
        unknown.push(term);
        continue;
      }
      const idf = Math.log(1 + (n - p.size + 0.5) / (p.size + 0.5));
      for (const [id, tf] of p)
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf * (options.k1 + 1)) / (tf + options.k1));
    }
    if (unknown.length > 0)
      for (const r of original.search({ queries: unknown, combineWith: 'OR' }, searchOptions))
        scores.set(r.id as number, (scores.get(r.id as number) ?? 0) + r.score);
    return [...scores].map(([id, score]) => ({ id, score }));
  };
  index.mini = { search } as unknown as SearchIndex['mini'];
}
