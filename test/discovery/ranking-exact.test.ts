// The fast paths of the ranking compute what the plain ones did, exactly: BM25 on typed postings gives
// MiniSearch's scores bit for bit (fresh, and after discards and additions once MiniSearch has vacuumed),
// the pruned neighbour search finds the same neighbours as a full scan and sort, and the meaning cosines
// skipped by their int8 bound change no hit.
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { generateCatalogue, generateQueries, prng } from '../../bench/discovery-catalogue.js';
import { toIndexedEndpoints } from '../../bench/discovery-devset.js';
import {
  buildLexical,
  LEXICAL_FIELDS,
  type LexicalDoc,
  type LexicalIndex,
  scoreLexical,
  updateLexical,
} from '../../src/modules/discovery/ranking/lexical.js';
import {
  analyse,
  matchQuery,
  neighboursOf,
  QUERY_TUNING,
} from '../../src/modules/discovery/ranking/query.js';
import { buildSearchIndex } from '../../src/modules/discovery/ranking/search-index.js';
import type { IndexedEndpoint } from '../../src/modules/discovery/ranking/types.js';
import { dotAt, loadWordVectors } from '../../src/modules/discovery/ranking/vectors.js';

const VOCABULARY = (
  'weather forecast rain temperature city translate sentence language invoice pdf convert text image resize ' +
  'photo email send message phone payment card refund stock price quote map route distance geocode address ' +
  'audio transcribe speech video frame summary news search index vector embed token crypto wallet balance ' +
  'calendar event meeting reminder file upload storage backup'
).split(' ');

function randomDocs(r: () => number, count: number): LexicalDoc[] {
  const words = (n: number) =>
    Array.from({ length: n }, () => VOCABULARY[Math.floor(r() * VOCABULARY.length)] as string).join(' ');
  return Array.from({ length: count }, () => ({
    description: words(3 + Math.floor(r() * 9)),
    tags: words(Math.floor(r() * 4)),
    slug: words(1 + Math.floor(r() * 2)),
    name: words(Math.floor(r() * 2)),
    // As the index writes it: the category joined after the provider's text (may start with a space).
    provider: ` ${words(Math.floor(r() * 5))}`.trimEnd(),
  }));
}

const known = new Set(VOCABULARY);
const OPTIONS = {
  boost: { description: 1, tags: 1, slug: 1, name: 1, provider: 1 },
  fuzzy: (term: string) => (term.length >= 5 && !known.has(term) ? 0.2 : false),
  fuzzyWeight: 0.6,
  k: 1.2,
  b: 0.7,
  d: 0.5,
};

function miniSearchOf() {
  return new MiniSearch<LexicalDoc & { id: number }>({
    fields: [...LEXICAL_FIELDS],
    idField: 'id',
    tokenize: (text) => (text ? text.split(' ') : []),
    processTerm: (term) => term,
  });
}

/** MiniSearch's scores for the query, as the ranking called it before (id -> score). */
function miniScores(mini: ReturnType<typeof miniSearchOf>, terms: string[]) {
  const results = mini.search(
    { queries: terms, combineWith: 'OR' },
    {
      boost: OPTIONS.boost,
      processTerm: (term) => term,
      tokenize: (text) => [text],
      fuzzy: OPTIONS.fuzzy,
      weights: { fuzzy: OPTIONS.fuzzyWeight, prefix: 0.3 },
      bm25: { k: OPTIONS.k, b: OPTIONS.b, d: OPTIONS.d },
    },
  );
  return new Map(results.map((x) => [x.id as number, x.score]));
}

function ownScores(lex: LexicalIndex, terms: string[], slots: number) {
  const out = new Float32Array(slots);
  const matched: number[] = [];
  const max = scoreLexical(lex, terms, OPTIONS, out, (slot) => matched.push(slot));
  return { out, matched, max };
}

const QUERIES = [
  ['weather', 'forecast'],
  ['translate', 'languag', 'sentence'],
  // Misspelt words only fuzzy matching finds.
  ['invoise', 'convert'],
  ['transcrbe', 'audio', 'speach'],
  ['payment', 'refund', 'card', 'balance', 'wallet'],
  ['nothing'],
];

function expectSameScores(mini: ReturnType<typeof miniSearchOf>, lex: LexicalIndex, slots: number) {
  for (const terms of QUERIES) {
    const expected = miniScores(mini, terms);
    const own = ownScores(lex, terms, slots);
    expect(own.matched.sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
    for (const [id, score] of expected) expect(own.out[id]).toBe(Math.fround(score));
    expect(own.max).toBe(Math.max(0, ...expected.values()));
  }
}

function built(docs: LexicalDoc[]): LexicalIndex {
  const steps = buildLexical(docs, 50);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

describe('BM25 on typed postings', () => {
  it('scores exactly as MiniSearch, fuzzy matches included', () => {
    const docs = randomDocs(prng(7), 400);
    const mini = miniSearchOf();
    for (const [id, doc] of docs.entries()) mini.add({ id, ...doc });
    expectSameScores(mini, built(docs), docs.length);
  });

  it('still does after documents are removed and added (MiniSearch vacuumed)', async () => {
    const r = prng(11);
    const docs = randomDocs(r, 300);
    const mini = miniSearchOf();
    for (const [id, doc] of docs.entries()) mini.add({ id, ...doc });
    const lex = built(docs);
    const removed = Array.from({ length: 40 }, (_, k) => ({ slot: k * 7, doc: docs[k * 7] as LexicalDoc }));
    // Freed slots reused, and new ones past the end.
    const added = randomDocs(r, 60).map((doc, k) => ({ slot: k < 40 ? k * 7 : 300 + k, doc }));
    for (const { slot } of removed) mini.discard(slot);
    for (const { slot, doc } of added) mini.add({ id: slot, ...doc });
    await mini.vacuum();
    updateLexical(lex, removed, added);
    expectSameScores(mini, lex, 400);
  });
});

describe('the pruned neighbour search', () => {
  it('finds the neighbours a full scan and a stable sort find, with the same similarities', () => {
    const vectors = loadWordVectors();
    const r = prng(3);
    const endpoints: IndexedEndpoint[] = randomDocs(r, 200).map((doc, i) => ({
      providerId: `p${i % 20}`,
      providerName: doc.name,
      providerDescription: doc.provider,
      category: 'data_intelligence',
      providerTags: [],
      slug: `e${i}`,
      method: 'GET',
      description: doc.description,
      tags: doc.tags.split(' ').filter(Boolean),
      parameters: {},
      responseSchema: null,
      priceCredits: 1000n,
    }));
    const index = buildSearchIndex(endpoints, vectors);
    const dims = vectors.dims;
    for (const w of analyse(index, 'rainfall umbrella money transfer picture sound lawyer weather')) {
      const q = w.vector as Float32Array;
      const full = index.vectorVocab
        // The same dot product as the ranking's (same order of additions), of every row.
        .map((entry, row) => ({ entry, sim: dotAt(q, index.vocabVectors, row * dims) }))
        .filter(
          (n) =>
            n.sim >= QUERY_TUNING.softMinSimilarity && n.entry.stem !== w.stem && n.entry.docs.length > 0,
        )
        .sort((a, b) => b.sim - a.sim)
        .slice(0, QUERY_TUNING.softNeighbours);
      const found = neighboursOf(index, w);
      expect(found.map((n) => [n.entry.stem, n.sim])).toEqual(full.map((n) => [n.entry.stem, n.sim]));
    }
  });
});

describe('the meaning cosines skipped by their int8 bound', () => {
  it('leave every hit and its relevance as computing all of them does', () => {
    const catalogue = generateCatalogue(120);
    const index = buildSearchIndex(toIndexedEndpoints(catalogue), loadWordVectors());
    const queries = generateQueries(catalogue, 150);
    const withSkips = queries.map((q) => matchQuery(index, q));
    // No skip at all: every bound is infinite, so every candidate gets its exact cosine.
    const rows = index.docRows;
    let tighter = 0;
    const unbounded = Object.create(rows) as typeof rows;
    unbounded.upperBounds = (query, from, to) => {
      const real = rows.upperBounds(query, from, to);
      for (let i = from; i < to; i++) if ((real[i] as number) < 0.3) tighter++;
      return real.map(() => Number.POSITIVE_INFINITY);
    };
    index.docRows = unbounded;
    const withoutSkips = queries.map((q) => matchQuery(index, q));
    index.docRows = rows;
    expect(withSkips).toEqual(withoutSkips);
    expect(withSkips.reduce((n, hits) => n + hits.slots.length, 0)).toBeGreaterThan(1000);
    // The bounds were asked for, and are low for many endpoints: there was something to skip.
    expect(tighter).toBeGreaterThan(1000);
  });
});

describe('the bound raised by the best relevance found so far', () => {
  it('leaves every hit and its relevance as computing every candidate does', () => {
    const catalogue = generateCatalogue(300);
    const index = buildSearchIndex(toIndexedEndpoints(catalogue), loadWordVectors());
    const queries = generateQueries(catalogue, 200);
    const fast = queries.map((q) => matchQuery(index, q));
    const exhaustive = queries.map((q) => matchQuery(index, q, undefined, undefined, true));
    expect(fast).toEqual(exhaustive);
    expect(fast.reduce((n, hits) => n + hits.slots.length, 0)).toBeGreaterThan(10_000);
    // With a filter and no relevance floor (the gate's use) as well.
    const even = (i: number) => i % 2 === 0;
    expect(queries.map((q) => matchQuery(index, q, even, 0))).toEqual(
      queries.map((q) => matchQuery(index, q, even, 0, true)),
    );
  });
});
