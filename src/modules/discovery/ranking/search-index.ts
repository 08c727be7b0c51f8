// The in-memory discovery index of the catalogue: BM25+ postings over the lexical fields (lexical.ts),
// the catalogue's vocabulary with posting lists and word vectors (for query expansion), each endpoint's
// key stems (keys.ts), and one mean word vector per endpoint (for matching by meaning when no word is
// shared). Per-endpoint data lives in typed arrays indexed by slot, so that a query walks arrays rather
// than objects and maps.
//
// Built once in full (`buildSearchIndex`, or `buildSearchIndexAsync`, which yields to the event loop
// between chunks), then kept current one provider at a time (`replaceProviderEndpoints`): each endpoint
// lives in a slot; a removed endpoint frees its slot, posting lists are rewritten only for the stems the
// change touches, and so are the BM25 postings of the terms it touches. IDF is computed from the live counts when a
// query asks (`idfOf`); the endpoint mean vectors keep the IDF of the moment they were computed, which
// drifts only with large changes of the catalogue (`vectorDrift` says how much, and the service rebuilds
// beside the live index when it matters).

import { FloatRows } from '../float-rows.js';
import { clearKeys, emptyKeyTable, type KeyTable, setKeys } from './keys.js';
import {
  buildLexical,
  emptyLexicalIndex,
  type LexicalDoc,
  type LexicalField,
  type LexicalIndex,
  updateLexical,
} from './lexical.js';
import { RowBounds } from './row-bounds.js';
import { termSpelledOut } from './short-forms.js';
import { contentWords, splitName, stem } from './text.js';
import type { IndexedEndpoint } from './types.js';
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
 * BM25 scores the lexical fields (lexical.ts): the category joins the provider's text there; parameter
 * texts only feed the meaning signals (as BM25 fields they measured no better and cost time).
 *

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
  /** Small integer of the stem, unique among live entries (reused after the stem leaves): it indexes
   *  per-query typed arrays instead of maps keyed by strings. */
  id: number;
  /** Row of the stem's vector in `SearchIndex.vocabVectors`, or -1 when none of its words has one. */
  row: number;
  /** Live endpoints containing the stem (ascending slots), and the weight of the best field it appears in
   *  (capped at 1). Replaced, never changed in place, when the stem's endpoints change. */
  docs: Int32Array;
  fieldFactor: Float32Array;
}

export interface SearchIndex {
  /** Endpoint of each slot; a slot whose `alive` flag is 0 holds a removed endpoint and is never matched. */
  endpoints: IndexedEndpoint[];
  alive: Uint8Array;
  /** Number of live endpoints. */
  live: number;
  /** Free slots, reused by the next endpoints added. */
  free: number[];
  /** Slots of each provider's endpoints. */
  providerSlots: Map<string, number[]>;
  /** BM25+ postings of the lexical fields. */
  lexical: LexicalIndex;
  vocab: Map<string, VocabEntry>;
  /** Vocabulary entries with a vector, in row order of `vocabVectors` (entries of vanished stems stay,
   *  with no docs, until the next full build). */
  vectorVocab: VocabEntry[];
  /** Row r = unit mean vector of the surface words of vectorVocab[r] (capacity may exceed the rows used). */
  vocabVectors: Float32Array;
  /** The same rows in int8, for the similar-word search's first pass (row-bounds.ts). */
  vocabRows: RowBounds;
  /** Surface words of each stem with their number of occurrences in the catalogue. */
  stemForms: Map<string, Map<string, number>>;
  /** Surface words of the catalogue (typo correction before a vector lookup); rebuilt lazily after changes. */
  surface: string[] | undefined;
  /** Ids (`VocabEntry.id`) of the distinct stems of endpoint i's slug and tags: what the endpoint is
   *  about, in brief. */
  keys: KeyTable;
  /** Next never-used stem id, and ids freed by stems that left the vocabulary. */
  nextStemId: number;
  freeStemIds: number[];
  /** Row i = unit mean vector of endpoint i (capacity may exceed the slots used), in WebAssembly memory. */
  docVectors: FloatRows;
  /** The same rows in int8, to bound the meaning cosine of a query's candidates (row-bounds.ts). */
  docRows: RowBounds;
  vectors: WordVectors;
  /** Live endpoint count when the endpoint vectors were last all computed (see `vectorDrift`). */
  builtWith: number;
  /** Endpoints added or removed since the full build. */
  changedSince: number;
  /** Per-index memo of query word -> similar catalogue stems (words repeat across queries), with the
   *  number of vocabulary rows it has seen; `clean` false once a change may have emptied one of them. */
  neighbourCache: Map<
    string,
    { rows: number; list: Array<{ entry: VocabEntry; sim: number }>; clean: boolean }
  >;
  /** Per-index memo of misspelt query word -> catalogue word ('' = none close enough). */
  typoCache: Map<string, string>;
  /** Buffers one query's ranking reuses (query.ts). */
  scratch: QueryScratch;
}

/**
 * Per-query working arrays, kept with the index so that an uncached query allocates nothing in
 * proportion to the catalogue (the ranking of one query is synchronous: one user at a time). The first
 * four are all zero between queries (every cell a query sets is zeroed before it returns); the rest are
 * written before they are read.
 */
export interface QueryScratch {
  /** BM25 score of each slot (float32, as the ranking has always stored it). */
  lexical: Float32Array;
  /** Soft credit of (slot, query word): row = slot x words of the query. */
  soft: Float32Array;
  /** 1 when the slot is a candidate of the query. */
  candidate: Uint8Array;
  /** Best credit of each vocabulary stem (by id) as an answer to some query word (for focus). */
  credit: Float64Array;
  /** Per candidate (up to one per slot), written before they are read: the candidates' slots, their
   *  partial relevance, and the slots and relevance of those scored in full. */
  candidates: Int32Array;
  partial: Float64Array;
  scoredAt: Int32Array;
  scoredRelevance: Float64Array;
}

function fieldTexts(e: IndexedEndpoint): Record<FieldName, string> {
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

/** What one endpoint contributes to the index. */
interface Analysed {
  doc: LexicalDoc;
  /** (word, stem, field weight) of every token. */
  tokens: Array<[string, string, number]>;
  /** Best field factor of each distinct stem. */
  best: Map<string, number>;
  keys: string[];
}

function analyseEndpoint(e: IndexedEndpoint): Analysed {
  const texts = fieldTexts(e);
  const doc: LexicalDoc = { description: '', tags: '', slug: '', name: '', provider: '' };
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
      best.set(s, Math.max(best.get(s) ?? 0, Math.min(1, FIELD_WEIGHTS[f])));
      // A term of the trade ("ASR") brings the words it stands for into the same field (short-forms.ts);
      // they are not key words: an endpoint is not about more things for being written in jargon.
      const term = termSpelledOut(word);
      if (term === undefined) continue;
      for (const long of contentWords(term)) {
        const ls = stem(long);
        stems.push(ls);
        tokens.push([long, ls, FIELD_WEIGHTS[f]]);
        best.set(ls, Math.max(best.get(ls) ?? 0, Math.min(1, FIELD_WEIGHTS[f])));
      }
    }
    const joined = stems.join(' ');
    if (f === 'category') doc.provider = `${doc.provider} ${joined}`;
    else if (f !== 'params') doc[f as LexicalField] = joined;
  }
  return { doc, tokens, best, keys: [...keys] };
}

/** Ids of an endpoint's key stems (every one is in the vocabulary: the endpoint contains it). */
function keyIdsOf(index: SearchIndex, keys: string[]): number[] {
  return keys.map((s) => (index.vocab.get(s) as VocabEntry).id);
}

/** BM25-style IDF of a stem from the live endpoint count. */
export function idfOf(index: SearchIndex, entry: VocabEntry): number {
  const n = Math.max(index.live, 1);
  const df = entry.docs.length;
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** Surface words of the catalogue (rebuilt after a change, on the first typo lookup that needs them). */
export function surfaceWords(index: SearchIndex): string[] {
  index.surface ??= [...index.stemForms.values()].flatMap((forms) => [...forms.keys()]);
  return index.surface;
}

/** Share of the live catalogue added or removed since every endpoint vector was computed. */
export function vectorDrift(index: SearchIndex): number {
  return index.changedSince / Math.max(index.builtWith, index.live, 1);
}

function countForms(index: SearchIndex, tokens: Array<[string, string, number]>, delta: 1 | -1) {
  const touched = new Set<string>();
  for (const [word, s] of tokens) {
    let forms = index.stemForms.get(s);
    if (!forms) {
      forms = new Map();
      index.stemForms.set(s, forms);
    }
    const count = (forms.get(word) ?? 0) + delta;
    if (count > 0) forms.set(word, count);
    else forms.delete(word);
    if (forms.size === 0) index.stemForms.delete(s);
    touched.add(s);
  }
  return touched;
}

/** Unit mean vector of a stem's surface words, weighted by their occurrences; undefined when none has one. */
function stemVector(index: SearchIndex, s: string): Float32Array | undefined {
  const dims = index.vectors.dims;
  let vector: Float32Array | undefined;
  for (const [word, count] of index.stemForms.get(s) ?? []) {
    const v = index.vectors.get(word);
    if (!v) continue;
    vector ??= new Float32Array(dims);
    for (let d = 0; d < dims; d++) vector[d] = (vector[d] as number) + count * (v[d] as number);
  }
  return vector ? normalise(vector) : undefined;
}

/** Grows a row-major matrix so that it holds at least `rows` rows (doubling, to amortise copies). */
function ensureRows(matrix: Float32Array, rows: number, dims: number): Float32Array {
  if (matrix.length >= rows * dims) return matrix;
  const grown = new Float32Array(Math.max(rows, Math.ceil((matrix.length / dims) * 1.5) + 16) * dims);
  grown.set(matrix);
  return grown;
}

/** Sets (or, with no vector, leaves) the stem's vector row. */
function setStemRow(index: SearchIndex, entry: VocabEntry) {
  const vector = stemVector(index, entry.stem);
  if (!vector) return;
  const dims = index.vectors.dims;
  if (entry.row < 0) {
    entry.row = index.vectorVocab.length;
    index.vectorVocab.push(entry);
    index.vocabVectors = ensureRows(index.vocabVectors, index.vectorVocab.length, dims);
  }
  index.vocabVectors.set(vector, entry.row * dims);
  index.vocabRows.set(entry.row, vector);
}

/**
 * Mean vector of endpoint `slot`: field weight x IDF x SIF weighted (Arora et al.'s smooth inverse
 * frequency). Weights are summed per distinct word first, so each vector is added once per endpoint.
 */
function setDocVector(index: SearchIndex, slot: number, tokens: Array<[string, string, number]>) {
  const dims = index.vectors.dims;
  const perWord = new Map<string, { stem: string; weight: number }>();
  for (const [word, s, fieldWeight] of tokens) {
    const acc = perWord.get(word);
    if (acc) acc.weight += fieldWeight;
    else perWord.set(word, { stem: s, weight: fieldWeight });
  }
  const off = slot * dims;
  const out = index.docVectors.matrix.subarray(off, off + dims);
  out.fill(0);
  for (const [word, { stem: s, weight }] of perWord) {
    const entry = index.vocab.get(s);
    if (!entry) continue;
    const own = index.vectors.get(word);
    const src = own ?? (entry.row >= 0 ? index.vocabVectors : undefined);
    if (!src) continue;
    const srcOff = own ? 0 : entry.row * dims;
    const w = weight * idfOf(index, entry) * index.vectors.sif(word);
    for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + w * (src[srcOff + d] as number);
  }
  normalise(out);
  index.docRows.set(slot, out);
}

function emptyIndex(vectors: WordVectors, capacity: number): SearchIndex {
  return {
    endpoints: [],
    alive: new Uint8Array(Math.max(capacity, 16)),
    live: 0,
    free: [],
    providerSlots: new Map(),
    lexical: emptyLexicalIndex(capacity),
    vocab: new Map(),
    vectorVocab: [],
    vocabVectors: new Float32Array(0),
    vocabRows: new RowBounds(vectors.dims),
    stemForms: new Map(),
    surface: undefined,
    keys: emptyKeyTable(capacity),
    nextStemId: 0,
    freeStemIds: [],
    docVectors: new FloatRows(vectors.dims, Math.max(capacity, 16)),
    docRows: new RowBounds(vectors.dims, capacity),
    vectors,
    builtWith: 0,
    changedSince: 0,
    neighbourCache: new Map(),
    typoCache: new Map(),
    scratch: {
      lexical: new Float32Array(0),
      soft: new Float32Array(0),
      candidate: new Uint8Array(0),
      credit: new Float64Array(0),
      candidates: new Int32Array(0),
      partial: new Float64Array(0),
      scoredAt: new Int32Array(0),
      scoredRelevance: new Float64Array(0),
    },
  };
}

/** Endpoints per step of the full build between two yields to the event loop. */
const BUILD_CHUNK = 500;

/**
 * The full build, as steps: each `yield` ends a chunk of work, so an async driver can let requests run
 * in between (a build of 100,000 endpoints takes seconds). Two passes: posting lists first, then the
 * endpoint vectors, whose weights need the final IDF.
 */
function* buildSteps(endpoints: IndexedEndpoint[], vectors: WordVectors): Generator<void, SearchIndex> {
  const index = emptyIndex(vectors, endpoints.length);
  const n = endpoints.length;
  const postings = new Map<string, { docs: number[]; factor: number[] }>();
  const analysed: Analysed[] = [];
  for (let id = 0; id < n; id++) {
    const e = endpoints[id] as IndexedEndpoint;
    const a = analyseEndpoint(e);
    analysed.push(a);
    index.endpoints.push(e);
    index.alive[id] = 1;
    const slots = index.providerSlots.get(e.providerId);
    if (slots) slots.push(id);
    else index.providerSlots.set(e.providerId, [id]);
    countForms(index, a.tokens, 1);
    for (const [s, factor] of a.best) {
      let p = postings.get(s);
      if (!p) {
        p = { docs: [], factor: [] };
        postings.set(s, p);
      }
      p.docs.push(id);
      p.factor.push(factor);
    }
    if (id % BUILD_CHUNK === BUILD_CHUNK - 1) yield;
  }
  index.live = n;
  index.builtWith = n;
  let k = 0;
  for (const [s, p] of postings) {
    const entry: VocabEntry = {
      stem: s,
      id: index.nextStemId++,
      row: -1,
      docs: Int32Array.from(p.docs),
      fieldFactor: Float32Array.from(p.factor),
    };
    index.vocab.set(s, entry);
    setStemRow(index, entry);
    if (++k % (BUILD_CHUNK * 4) === 0) yield;
  }
  for (let id = 0; id < n; id++) {
    const a = analysed[id] as Analysed;
    setKeys(index.keys, id, keyIdsOf(index, a.keys));
    setDocVector(index, id, a.tokens);
    if (id % BUILD_CHUNK === BUILD_CHUNK - 1) yield;
  }
  index.lexical = yield* buildLexical(
    analysed.map((a) => a.doc),
    BUILD_CHUNK,
  );
  return index;
}

export function buildSearchIndex(endpoints: IndexedEndpoint[], vectors: WordVectors): SearchIndex {
  const steps = buildSteps(endpoints, vectors);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The full build, yielding to the event loop between chunks so that requests keep being served. */
export async function buildSearchIndexAsync(
  endpoints: IndexedEndpoint[],
  vectors: WordVectors,
): Promise<SearchIndex> {
  const steps = buildSteps(endpoints, vectors);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Posting list of `entry` with `remove` taken out and `add` (slot -> factor) merged in, ascending. */
function rewritePostings(entry: VocabEntry, remove: Set<number>, add: Map<number, number>) {
  // One merge of three ascending lists (kept, removed, added) into typed arrays: a common stem's list
  // holds a large share of the catalogue, and a lookup in a Set and a Map per posting, with the list
  // rebuilt in JS arrays, was most of a provider's update at 100,000 endpoints.
  const added = Int32Array.from(add.keys()).sort();
  const removed = Int32Array.from(remove).sort();
  const { docs, fieldFactor } = entry;
  const slots = new Int32Array(docs.length + added.length);
  const factors = new Float32Array(slots.length);
  let n = 0;
  let j = 0;
  let r = 0;
  for (let k = 0; k < docs.length; k++) {
    const slot = docs[k] as number;
    for (; j < added.length && (added[j] as number) < slot; j++, n++) {
      slots[n] = added[j] as number;
      factors[n] = add.get(added[j] as number) as number;
    }
    while (r < removed.length && (removed[r] as number) < slot) r++;
    // Removed, or replaced by an added posting of the same slot (written when a larger slot comes).
    if ((removed[r] as number) === slot || (added[j] as number) === slot) continue;
    slots[n] = slot;
    factors[n++] = fieldFactor[k] as number;
  }
  for (; j < added.length; j++, n++) {
    slots[n] = added[j] as number;
    factors[n] = add.get(added[j] as number) as number;
  }
  entry.docs = n === slots.length ? slots : slots.slice(0, n);
  entry.fieldFactor = n === factors.length ? factors : factors.slice(0, n);
}

/**
 * Replaces every endpoint of one provider by `endpoints` (none: the provider is gone). Work is
 * proportional to the provider's endpoints and the posting lists of their stems, not to the catalogue.
 */
export function replaceProviderEndpoints(
  index: SearchIndex,
  providerId: string,
  endpoints: IndexedEndpoint[],
) {
  const old = index.providerSlots.get(providerId) ?? [];
  const removed = new Set<number>();
  const perStemRemove = new Map<string, Set<number>>();
  const perStemAdd = new Map<string, Map<number, number>>();
  const touchedForms = new Set<string>();
  const removedDocs: Array<{ slot: number; doc: LexicalDoc }> = [];
  for (const slot of old) {
    const a = analyseEndpoint(index.endpoints[slot] as IndexedEndpoint);
    removedDocs.push({ slot, doc: a.doc });
    for (const s of countForms(index, a.tokens, -1)) touchedForms.add(s);
    for (const s of a.best.keys()) {
      let set = perStemRemove.get(s);
      if (!set) {
        set = new Set();
        perStemRemove.set(s, set);
      }
      set.add(slot);
    }
    index.alive[slot] = 0;
    clearKeys(index.keys, slot);
    removed.add(slot);
    index.live -= 1;
  }
  index.free.push(...old);
  index.providerSlots.delete(providerId);

  const added: Array<{ slot: number; a: Analysed }> = [];
  for (const e of endpoints) {
    const slot = index.free.pop() ?? index.endpoints.length;
    const a = analyseEndpoint(e);
    index.endpoints[slot] = e;
    if (slot >= index.alive.length) {
      const grown = new Uint8Array(Math.ceil(index.alive.length * 1.5) + 16);
      grown.set(index.alive);
      index.alive = grown;
    }
    index.alive[slot] = 1;
    index.live += 1;
    for (const s of countForms(index, a.tokens, 1)) touchedForms.add(s);
    for (const [s, factor] of a.best) {
      let map = perStemAdd.get(s);
      if (!map) {
        map = new Map();
        perStemAdd.set(s, map);
      }
      map.set(slot, factor);
    }
    added.push({ slot, a });
  }
  if (added.length > 0)
    index.providerSlots.set(
      providerId,
      added.map((x) => x.slot),
    );

  const none = new Set<number>();
  const nothing = new Map<number, number>();
  for (const s of new Set([...perStemRemove.keys(), ...perStemAdd.keys()])) {
    let entry = index.vocab.get(s);
    if (!entry) {
      const id = index.freeStemIds.pop() ?? index.nextStemId++;
      entry = { stem: s, id, row: -1, docs: new Int32Array(0), fieldFactor: new Float32Array(0) };
      index.vocab.set(s, entry);
    }
    rewritePostings(entry, perStemRemove.get(s) ?? none, perStemAdd.get(s) ?? nothing);
    // A stem no endpoint uses any more leaves the vocabulary; its vector row stays, with no docs (and
    // its id is free: no live endpoint refers to it).
    if (entry.docs.length === 0) {
      index.vocab.delete(s);
      index.freeStemIds.push(entry.id);
    }
  }
  for (const { slot, a } of added) setKeys(index.keys, slot, keyIdsOf(index, a.keys));
  for (const s of touchedForms) {
    const entry = index.vocab.get(s);
    if (entry) setStemRow(index, entry);
  }
  index.docVectors.ensure(index.endpoints.length);
  for (const { slot, a } of added) setDocVector(index, slot, a.tokens);
  updateLexical(
    index.lexical,
    removedDocs,
    added.map(({ slot, a }) => ({ slot, doc: a.doc })),
  );
  index.changedSince += old.length + endpoints.length;
  index.surface = undefined;
  // Memoised neighbour lists are completed (new rows) and cleaned (emptied stems) when next read.
  for (const memo of index.neighbourCache.values()) memo.clean = false;
  index.typoCache.clear();
}
