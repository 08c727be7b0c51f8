// The in-memory discovery index of one catalogue snapshot: a MiniSearch (BM25+) index over weighted
// fields, the catalogue's vocabulary with IDF and word vectors (for query expansion), and one mean
// word vector per endpoint (for matching by meaning when no word is shared).
import MiniSearch from 'minisearch';
import { contentWords, stem } from './text.js';
import type { CatalogueEndpoint } from './types.js';
import { normalise, type WordVectors } from './vectors.js';

export type FieldName = 'description' | 'tags' | 'slug' | 'name' | 'provider' | 'category' | 'params';

/** Relative importance of each text field (BM25 boosts and weights of the mean vector). */
export const FIELD_WEIGHTS: Record<FieldName, number> = {
  description: 1.0,
  tags: 1.6,
  slug: 1.4,
  name: 0.6,
  provider: 0.5,
  category: 0.3,
  params: 0.25,
};

const FIELDS = Object.keys(FIELD_WEIGHTS) as FieldName[];

/**
 * Fields MiniSearch scores with BM25 (the category joins the provider's text there; parameter texts
 * only feed the meaning signals: as BM25 fields they measured no better and cost time).
 */
const LEXICAL_FIELDS = ['description', 'tags', 'slug', 'name', 'provider'] as const;
type LexicalField = (typeof LEXICAL_FIELDS)[number];
/**
 * BM25 field boosts. Field importance already shapes soft coverage and the mean vectors (FIELD_WEIGHTS);
 * boosting BM25 as well measured worse on the dev set, so BM25 weighs the fields evenly by default.
 */
export const LEXICAL_BOOSTS: Record<LexicalField, number> = {
  description: 1,
  tags: 1,
  slug: 1,
  name: 1,
  provider: 1,
};

export interface VocabEntry {
  stem: string;
  /** Row of the stem's vector in `SearchIndex.vocabVectors`, or -1 when none of its words has one. */
  row: number;
  idf: number;
  /** Endpoints containing the stem, and the weight of the best field it appears in (capped at 1). */
  docs: Int32Array;
  fieldFactor: Float32Array;
}

export interface SearchIndex {
  endpoints: CatalogueEndpoint[];
  mini: MiniSearch<IndexedDoc>;
  vocab: Map<string, VocabEntry>;
  /** Vocabulary entries with a vector, in row order of `vocabVectors`. */
  vectorVocab: VocabEntry[];
  /** Row r = unit mean vector of the surface words of vectorVocab[r]. */
  vocabVectors: Float32Array;
  /** Surface words of the catalogue (typo correction before a vector lookup). */
  surfaceWords: string[];
  /** Distinct stems of endpoint i's slug and tags: what the endpoint is about, in brief. */
  keyStems: string[][];
  /** Row i = unit mean vector of endpoint i. */
  docVectors: Float32Array;
  vectors: WordVectors;
  /** Per-snapshot memo of query word -> similar catalogue stems (words repeat across queries). */
  neighbourCache: Map<string, Array<{ entry: VocabEntry; sim: number }>>;
  /** Per-snapshot memo of misspelt query word -> catalogue word ('' = none close enough). */
  typoCache: Map<string, string>;
}

/** Fields hold space-joined stems: tokenised once here, not again by MiniSearch. */
type IndexedDoc = { id: number } & Record<LexicalField, string>;

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

export function buildSearchIndex(endpoints: CatalogueEndpoint[], vectors: WordVectors): SearchIndex {
  const dims = vectors.dims;
  const n = endpoints.length;
  const docs: IndexedDoc[] = [];
  const stemForms = new Map<string, Map<string, number>>();
  const stemDocs = new Map<string, { docs: number[]; factor: number[] }>();
  const docVectors = new Float32Array(n * dims);
  // Per endpoint: (word, stem, field weight) triples, kept until IDF is known.
  const docTokens: Array<Array<[string, string, number]>> = [];
  const keyStems: string[][] = [];

  endpoints.forEach((e, id) => {
    const texts = fieldTexts(e);
    const doc = { id, description: '', tags: '', slug: '', name: '', provider: '' };
    const tokens: Array<[string, string, number]> = [];
    const best = new Map<string, number>();
    const keys = new Set<string>();
    for (const f of FIELDS) {
      const stems: string[] = [];
      for (const word of contentWords(texts[f])) {
        const s = stem(word);
        stems.push(s);
        if (f === 'slug' || f === 'tags') keys.add(s);
        tokens.push([word, s, FIELD_WEIGHTS[f]]);
        let forms = stemForms.get(s);
        if (!forms) {
          forms = new Map();
          stemForms.set(s, forms);
        }
        forms.set(word, (forms.get(word) ?? 0) + 1);
        best.set(s, Math.max(best.get(s) ?? 0, Math.min(1, FIELD_WEIGHTS[f])));
      }
      const joined = stems.join(' ');
      if (f === 'category') doc.provider = `${doc.provider} ${joined}`;
      else if (f !== 'params') doc[f] = joined;
    }
    docs.push(doc);
    docTokens.push(tokens);
    keyStems.push([...keys]);
    for (const [s, factor] of best) {
      let p = stemDocs.get(s);
      if (!p) {
        p = { docs: [], factor: [] };
        stemDocs.set(s, p);
      }
      p.docs.push(id);
      p.factor.push(factor);
    }
  });

  const vocab = new Map<string, VocabEntry>();
  const vectorVocab: VocabEntry[] = [];
  const rows: Float32Array[] = [];
  const surfaceWords: string[] = [];
  for (const [s, p] of stemDocs) {
    const forms = stemForms.get(s) ?? new Map<string, number>();
    let vector: Float32Array | undefined;
    for (const [word, count] of forms) {
      surfaceWords.push(word);
      const v = vectors.get(word);
      if (!v) continue;
      vector ??= new Float32Array(dims);
      for (let d = 0; d < dims; d++) vector[d] = (vector[d] as number) + count * (v[d] as number);
    }
    const df = p.docs.length;
    const entry: VocabEntry = {
      stem: s,
      row: vector ? rows.length : -1,
      idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)),
      docs: Int32Array.from(p.docs),
      fieldFactor: Float32Array.from(p.factor),
    };
    if (vector) {
      rows.push(normalise(vector));
      vectorVocab.push(entry);
    }
    vocab.set(s, entry);
  }
  const vocabVectors = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => {
    vocabVectors.set(r, i * dims);
  });

  // Mean vector of each endpoint: field weight x IDF x SIF weighted (Arora et al.'s smooth inverse
  // frequency). Weights are summed per distinct word first, so each vector is added once per endpoint.
  const perWord = new Map<string, { stem: string; weight: number }>();
  docTokens.forEach((tokens, i) => {
    perWord.clear();
    for (const [word, s, fieldWeight] of tokens) {
      const acc = perWord.get(word);
      if (acc) acc.weight += fieldWeight;
      else perWord.set(word, { stem: s, weight: fieldWeight });
    }
    const off = i * dims;
    for (const [word, { stem: s, weight }] of perWord) {
      const entry = vocab.get(s) as VocabEntry;
      const own = vectors.get(word);
      const src = own ?? (entry.row >= 0 ? vocabVectors : undefined);
      if (!src) continue;
      const srcOff = own ? 0 : entry.row * dims;
      const w = weight * entry.idf * vectors.sif(word);
      for (let d = 0; d < dims; d++)
        docVectors[off + d] = (docVectors[off + d] as number) + w * (src[srcOff + d] as number);
    }
    normalise(docVectors.subarray(off, off + dims));
  });

  const mini = new MiniSearch<IndexedDoc>({
    fields: [...LEXICAL_FIELDS],
    idField: 'id',
    tokenize: (text) => (text ? text.split(' ') : []),
    processTerm: (term) => term,
  });
  mini.addAll(docs);

  return {
    endpoints,
    mini,
    vocab,
    vectorVocab,
    vocabVectors,
    surfaceWords,
    keyStems,
    docVectors,
    vectors,
    neighbourCache: new Map(),
    typoCache: new Map(),
  };
}
