// BM25+ over the endpoints' lexical fields, on typed arrays. It scores as MiniSearch (7.x) did here
// before, bit for bit on a fresh build: the same formula and parameters, the same order of every
// addition, the same incrementally kept field-length averages, and fuzzy matches enumerated by
// MiniSearch's own radix tree filled in the same order. What it saves: MiniSearch builds a Map and an
// object per matching document per query term (and sorts them), and keeps a Map per term and field; here
// a query walks typed posting lists into reused arrays.
//
// After incremental updates the scores are those of the live documents exactly; MiniSearch counted a
// discarded document in a term's document frequency until a search or a vacuum cleaned it up.
import SearchableMap from 'minisearch/SearchableMap';

export const LEXICAL_FIELDS = ['description', 'tags', 'slug', 'name', 'provider'] as const;
export type LexicalField = (typeof LEXICAL_FIELDS)[number];
/** Fields hold space-joined stems (tokenised once, by the index). */
export type LexicalDoc = Record<LexicalField, string>;
const F = LEXICAL_FIELDS.length;

/** MiniSearch's default cap on the edit distance of a fuzzy match. */
const MAX_FUZZY = 6;

interface TermPostings {
  /** Slots holding the term, field after field (field f: slots[start[f]] .. slots[start[f + 1] - 1]),
   *  ascending within a field. */
  slots: Int32Array;
  /** Occurrences of the term in that field of that slot. */
  freq: Uint16Array;
  start: Int32Array;
}

export interface LexicalIndex {
  /** Term -> postings, in a radix tree (for fuzzy matching) filled in the order MiniSearch filled its own. */
  terms: SearchableMap<TermPostings>;
  /** Distinct tokens of field f of slot s at [s * 5 + f]: MiniSearch's field length. */
  fieldLength: Uint16Array;
  /** Mean field lengths over the live documents, kept by MiniSearch's incremental formulas. */
  avgFieldLength: Float64Array;
  documentCount: number;
  /** Per-query arrays (per slot), all zero between queries. */
  termScore: Float64Array;
  total: Float64Array;
  termSeen: Uint8Array;
  matched: Uint8Array;
  /** Slots one query term touched, and slots the query matched so far (lengths kept by the query). */
  touched: Int32Array;
  docs: Int32Array;
}

export interface LexicalOptions {
  boost: Record<LexicalField, number>;
  /** Fuzziness of a query term (share of its length, or false): MiniSearch's `fuzzy` option. */
  fuzzy: (term: string) => number | false;
  fuzzyWeight: number;
  k: number;
  b: number;
  d: number;
}

const tokens = (text: string) => (text ? text.split(' ') : []);

export function emptyLexicalIndex(capacity: number): LexicalIndex {
  return {
    terms: new SearchableMap<TermPostings>(),
    fieldLength: new Uint16Array(capacity * F),
    avgFieldLength: new Float64Array(F),
    documentCount: 0,
    termScore: new Float64Array(capacity),
    total: new Float64Array(capacity),
    termSeen: new Uint8Array(capacity),
    matched: new Uint8Array(capacity),
    touched: new Int32Array(capacity),
    docs: new Int32Array(capacity),
  };
}

function ensureSlots(lex: LexicalIndex, slots: number) {
  if (lex.termScore.length >= slots) return;
  const capacity = Math.ceil(slots * 1.5) + 16;
  const fieldLength = new Uint16Array(capacity * F);
  fieldLength.set(lex.fieldLength);
  lex.fieldLength = fieldLength;
  lex.termScore = new Float64Array(capacity);
  lex.total = new Float64Array(capacity);
  lex.termSeen = new Uint8Array(capacity);
  lex.matched = new Uint8Array(capacity);
  lex.touched = new Int32Array(capacity);
  lex.docs = new Int32Array(capacity);
}

/** Terms an update touches, with the (slot -> occurrences) it adds in each field. */
type Change = Map<string, { added: Array<Map<number, number>> }>;

function changeOf(change: Change, term: string) {
  let c = change.get(term);
  if (!c) {
    c = { added: Array.from({ length: F }, () => new Map<number, number>()) };
    change.set(term, c);
  }
  return c;
}

/** MiniSearch's addFieldLength / removeFieldLength, in its order (field 0..4 of one document at a time). */
function addLengths(lex: LexicalIndex, slot: number, doc: LexicalDoc) {
  lex.documentCount += 1;
  const count = lex.documentCount - 1;
  LEXICAL_FIELDS.forEach((field, f) => {
    const length = new Set(tokens(doc[field])).size;
    lex.fieldLength[slot * F + f] = length;
    const average = lex.avgFieldLength[f] || 0;
    lex.avgFieldLength[f] = (average * count + length) / (count + 1);
  });
}

function removeLengths(lex: LexicalIndex, slot: number) {
  const count = lex.documentCount;
  for (let f = 0; f < F; f++) {
    if (count === 1) lex.avgFieldLength[f] = 0;
    else {
      const total = (lex.avgFieldLength[f] as number) * count - (lex.fieldLength[slot * F + f] as number);
      lex.avgFieldLength[f] = total / (count - 1);
    }
    lex.fieldLength[slot * F + f] = 0;
  }
  lex.documentCount -= 1;
}

/**
 * Removes the documents of `removed` slots and adds `added` (slot, document) pairs, in this order (as
 * MiniSearch's discard and add were called). Work is proportional to these documents and the posting
 * lists of their terms.
 */
export function updateLexical(
  lex: LexicalIndex,
  removed: Array<{ slot: number; doc: LexicalDoc }>,
  added: Array<{ slot: number; doc: LexicalDoc }>,
) {
  const change: Change = new Map();
  for (const { slot, doc } of removed) {
    removeLengths(lex, slot);
    for (const field of LEXICAL_FIELDS)
      for (const term of tokens(doc[field])) if (term) changeOf(change, term);
  }
  const maxSlot = added.reduce((m, a) => Math.max(m, a.slot), -1);
  ensureSlots(lex, maxSlot + 1);
  for (const { slot, doc } of added) {
    addLengths(lex, slot, doc);
    LEXICAL_FIELDS.forEach((field, f) => {
      for (const term of tokens(doc[field])) {
        if (!term) continue;
        const perField = changeOf(change, term).added[f] as Map<number, number>;
        perField.set(slot, (perField.get(slot) ?? 0) + 1);
      }
    });
  }
  // A removed document's slot is dropped from every posting list it is in (a slot reused by an added
  // document is among them: its old postings go, its new ones come from `added`).
  const gone = new Uint8Array(lex.termScore.length);
  for (const { slot } of removed) gone[slot] = 1;
  for (const [term, { added: fresh }] of change) {
    const old = lex.terms.get(term);
    const incoming = fresh.map((add) => [...add.keys()].sort((a, b) => a - b));
    const start = new Int32Array(F + 1);
    for (let f = 0; f < F; f++) {
      let kept = 0;
      if (old)
        for (let k = old.start[f] as number; k < (old.start[f + 1] as number); k++)
          if (gone[old.slots[k] as number] === 0) kept++;
      start[f + 1] = (start[f] as number) + kept + (incoming[f] as number[]).length;
    }
    const size = start[F] as number;
    if (size === 0) {
      if (old) lex.terms.delete(term);
      continue;
    }
    const slots = new Int32Array(size);
    const freq = new Uint16Array(size);
    for (let f = 0; f < F; f++) {
      const add = fresh[f] as Map<number, number>;
      const sorted = incoming[f] as number[];
      let at = start[f] as number;
      let j = 0;
      const from = old ? (old.start[f] as number) : 0;
      const to = old ? (old.start[f + 1] as number) : 0;
      for (let k = from; k < to; k++) {
        const slot = (old as TermPostings).slots[k] as number;
        for (; j < sorted.length && (sorted[j] as number) < slot; j++, at++) {
          slots[at] = sorted[j] as number;
          freq[at] = add.get(sorted[j] as number) as number;
        }
        if (gone[slot] === 1) continue;
        slots[at] = slot;
        freq[at] = (old as TermPostings).freq[k] as number;
        at++;
      }
      for (; j < sorted.length; j++, at++) {
        slots[at] = sorted[j] as number;
        freq[at] = add.get(sorted[j] as number) as number;
      }
    }
    if (old) Object.assign(old, { slots, freq, start });
    else lex.terms.set(term, { slots, freq, start });
  }
}

/**
 * Builds the index of `docs` (slot i = docs[i]) in steps of `chunk` documents: the caller may yield to
 * the event loop between them. Terms enter the radix tree in MiniSearch's order (document, field, token).
 */
export function* buildLexical(docs: LexicalDoc[], chunk: number): Generator<void, LexicalIndex> {
  const lex = emptyLexicalIndex(docs.length);
  const building = new Map<string, { slots: number[][]; freq: number[][] }>();
  for (let slot = 0; slot < docs.length; slot++) {
    const doc = docs[slot] as LexicalDoc;
    addLengths(lex, slot, doc);
    LEXICAL_FIELDS.forEach((field, f) => {
      for (const term of tokens(doc[field])) {
        if (!term) continue;
        let b = building.get(term);
        if (!b) {
          b = { slots: Array.from({ length: F }, () => []), freq: Array.from({ length: F }, () => []) };
          building.set(term, b);
          lex.terms.set(term, {
            slots: new Int32Array(0),
            freq: new Uint16Array(0),
            start: new Int32Array(0),
          });
        }
        const s = b.slots[f] as number[];
        const q = b.freq[f] as number[];
        if (s[s.length - 1] === slot) q[q.length - 1] = (q[q.length - 1] as number) + 1;
        else {
          s.push(slot);
          q.push(1);
        }
      }
    });
    if (slot % chunk === chunk - 1) yield;
  }
  for (const [term, b] of building) {
    const postings = lex.terms.get(term) as TermPostings;
    postings.start = new Int32Array(F + 1);
    for (let f = 0; f < F; f++)
      postings.start[f + 1] = (postings.start[f] as number) + (b.slots[f] as number[]).length;
    postings.slots = Int32Array.from(b.slots.flat());
    postings.freq = Uint16Array.from(b.freq.flat());
  }
  return lex;
}

/**
 * BM25+ score of every document matching any of `queryTerms` (OR), written to `out[slot]` (as float32,
 * as the ranking stores it); `onMatch` is called once per matching slot. Returns the highest score
 * (before the float32 rounding, as MiniSearch returned it). A document's score is the sum over the query
 * terms it matches, times their number (MiniSearch's "quality").
 */
export function scoreLexical(
  lex: LexicalIndex,
  queryTerms: Iterable<string>,
  options: LexicalOptions,
  out: Float32Array,
  onMatch: (slot: number) => void,
): number {
  const { termScore, total, termSeen, matched, touched, docs } = lex;
  const boosts = LEXICAL_FIELDS.map((field) =>
    Object.hasOwn(options.boost, field) ? options.boost[field] || 1 : 1,
  );
  const { k, b, d } = options;
  // Each slot enters `touched` once per term (termSeen) and `docs` once per query (matched).
  let touchedCount = 0;
  let docCount = 0;
  const n = lex.documentCount;
  const addTerm = (postings: TermPostings, weight: number) => {
    for (let f = 0; f < F; f++) {
      const from = postings.start[f] as number;
      const to = postings.start[f + 1] as number;
      if (from === to) continue;
      const fieldBoost = boosts[f] as number;
      const matching = to - from;
      const average = lex.avgFieldLength[f] as number;
      const invDocFreq = Math.log(1 + (n - matching + 0.5) / (matching + 0.5));
      for (let j = from; j < to; j++) {
        const slot = postings.slots[j] as number;
        const termFreq = postings.freq[j] as number;
        const fieldLength = lex.fieldLength[slot * F + f] as number;
        const raw =
          invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / average)));
        if (termSeen[slot] === 0) {
          termSeen[slot] = 1;
          touched[touchedCount++] = slot;
        }
        termScore[slot] = (termScore[slot] as number) + weight * fieldBoost * raw;
      }
    }
  };
  for (const term of queryTerms) {
    const exact = lex.terms.get(term);
    if (exact) addTerm(exact, 1);
    const fuzzy = options.fuzzy(term);
    if (fuzzy) {
      const maxDistance = fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(term.length * fuzzy)) : fuzzy;
      if (maxDistance)
        for (const [derived, [postings, distance]] of lex.terms.fuzzyGet(term, maxDistance)) {
          if (!distance) continue;
          addTerm(postings, (options.fuzzyWeight * derived.length) / (derived.length + distance));
        }
    }
    for (let t = 0; t < touchedCount; t++) {
      const slot = touched[t] as number;
      if (matched[slot] === 0) docs[docCount++] = slot;
      matched[slot] = (matched[slot] as number) + 1;
      total[slot] = (total[slot] as number) + (termScore[slot] as number);
      termScore[slot] = 0;
      termSeen[slot] = 0;
    }
    touchedCount = 0;
  }
  let max = 0;
  for (let t = 0; t < docCount; t++) {
    const slot = docs[t] as number;
    const score = (total[slot] as number) * (matched[slot] as number);
    out[slot] = score;
    if (score > max) max = score;
    total[slot] = 0;
    matched[slot] = 0;
    onMatch(slot);
  }
  return max;
}
