// The in-memory discovery index of one catalogue snapshot: a MiniSearch (BM25+) index over weighted
// fields, the catalogue's vocabulary with IDF and word vectors (for query expansion), and one mean
// word vector per endpoint (for matching by meaning when no word is shared).
import MiniSearch from 'minisearch';
import { contentWords, stem } from './text.js';
import type { CatalogueEndpoint } from './types.js';
import { normalise, type WordVectors } from './vectors.js';

/** Relative importance of each text field (BM25 boosts and weights of the mean vector). */
export const FIELD_WEIGHTS = {
  description: 1.0,
  tags: 1.6,
  slug: 1.4,
  name: 0.6,
  provider: 0.5,
  category: 0.3,
  params: 0.25,
} as const;

export type FieldName = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as FieldName[];

export interface VocabEntry {
  stem: string;
  /** Number of endpoints whose texts contain the stem. */
  df: number;
  idf: number;
  /** Mean unit vector of the surface words seen for this stem; undefined when none has a vector. */
  vector: Float32Array | undefined;
  /** Endpoints containing the stem, and the weight of the best field it appears in (capped at 1). */
  docs: number[];
  fieldFactor: number[];
}

export interface SearchIndex {
  endpoints: CatalogueEndpoint[];
  mini: MiniSearch<IndexedDoc>;
  vocab: Map<string, VocabEntry>;
  /** Vocabulary entries that have a vector, for nearest-neighbour expansion. */
  vectorVocab: VocabEntry[];
  /** Surface words of the catalogue (typo correction before a vector lookup). */
  surfaceWords: Set<string>;
  /** Row i = unit mean vector of endpoint i (dims columns). */
  docVectors: Float32Array;
  vectors: WordVectors;
}

interface IndexedDoc {
  id: number;
  description: string;
  tags: string;
  slug: string;
  name: string;
  provider: string;
  category: string;
  params: string;
}

/** "CloudVane" -> "Cloud Vane", "ip_intel-v2" -> "ip intel v2": names carry words too. */
function splitName(text: string): string {
  return text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_./]+/g, ' ');
}

function fieldTexts(e: CatalogueEndpoint): Record<FieldName, string> {
  const params = Object.entries(e.parameters)
    .map(([name, p]) => `${splitName(name)} ${typeof p.description === 'string' ? p.description : ''}`)
    .join(' ');
  return {
    description: e.description,
    tags: e.tags.map(splitName).join(' '),
    slug: splitName(e.slug),
    name: splitName(e.providerName),
    provider: `${e.providerDescription} ${e.providerTags.map(splitName).join(' ')}`,
    category: e.category.replace(/_/g, ' ').replace(/\bai ml\b/, 'ai machine learning'),
    params,
  };
}

/** Index-side term processing: MiniSearch indexes Porter stems of content words. */
export function indexTerm(term: string): string | null {
  const ws = contentWords(term);
  const w = ws[0];
  return w === undefined ? null : stem(w);
}

export function buildSearchIndex(endpoints: CatalogueEndpoint[], vectors: WordVectors): SearchIndex {
  const dims = vectors.dims;
  const docs: IndexedDoc[] = [];
  const dfCount = new Map<string, number>();
  const surfaces = new Map<string, Map<string, number>>();
  const perDocTokens: Array<Array<{ word: string; stem: string; weight: number }>> = [];
  const postings = new Map<string, { docs: number[]; fieldFactor: number[] }>();

  endpoints.forEach((e, id) => {
    const texts = fieldTexts(e);
    docs.push({ id, ...texts });
    const seen = new Set<string>();
    const tokens: Array<{ word: string; stem: string; weight: number }> = [];
    for (const f of FIELDS) {
      for (const word of contentWords(texts[f])) {
        const s = stem(word);
        tokens.push({ word, stem: s, weight: FIELD_WEIGHTS[f] });
        const forms = surfaces.get(s) ?? new Map<string, number>();
        surfaces.set(s, forms);
        forms.set(word, (forms.get(word) ?? 0) + 1);
        if (!seen.has(s)) {
          seen.add(s);
          dfCount.set(s, (dfCount.get(s) ?? 0) + 1);
        }
      }
    }
    perDocTokens.push(tokens);
    const best = new Map<string, number>();
    for (const t of tokens) best.set(t.stem, Math.max(best.get(t.stem) ?? 0, Math.min(1, t.weight)));
    for (const [s, factor] of best) {
      const p = postings.get(s) ?? { docs: [], fieldFactor: [] };
      postings.set(s, p);
      p.docs.push(id);
      p.fieldFactor.push(factor);
    }
  });

  const n = Math.max(endpoints.length, 1);
  const vocab = new Map<string, VocabEntry>();
  const surfaceWords = new Set<string>();
  for (const [s, df] of dfCount) {
    const forms = surfaces.get(s) ?? new Map<string, number>();
    let vector: Float32Array | undefined;
    for (const [word, count] of forms) {
      surfaceWords.add(word);
      const v = vectors.get(word);
      if (!v) continue;
      vector ??= new Float32Array(dims);
      for (let d = 0; d < dims; d++) vector[d] = (vector[d] as number) + count * (v[d] as number);
    }
    const p = postings.get(s) ?? { docs: [], fieldFactor: [] };
    vocab.set(s, {
      stem: s,
      df,
      idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)),
      vector: vector && normalise(vector),
      docs: p.docs,
      fieldFactor: p.fieldFactor,
    });
  }

  const docVectors = new Float32Array(endpoints.length * dims);
  perDocTokens.forEach((tokens, i) => {
    const row = docVectors.subarray(i * dims, (i + 1) * dims);
    for (const t of tokens) {
      const entry = vocab.get(t.stem);
      const v = vectors.get(t.word) ?? entry?.vector;
      if (!v || !entry) continue;
      const w = t.weight * entry.idf * vectors.sif(t.word);
      for (let d = 0; d < dims; d++) row[d] = (row[d] as number) + w * (v[d] as number);
    }
    normalise(row);
  });

  const mini = new MiniSearch<IndexedDoc>({
    fields: FIELDS,
    idField: 'id',
    processTerm: indexTerm,
  });
  mini.addAll(docs);

  return {
    endpoints,
    mini,
    vocab,
    vectorVocab: [...vocab.values()].filter((v) => v.vector !== undefined),
    surfaceWords,
    docVectors,
    vectors,
  };
}
