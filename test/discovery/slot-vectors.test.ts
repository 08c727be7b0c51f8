// The slots' vector matrix kept current in place (slotVectors with the previous generation's): after
// endpoints are replaced, added and removed, every slot scores what its endpoint's vector says.
import { describe, expect, it } from 'vitest';
import { quantise, type StoredVector } from '../../src/modules/discovery/int8-rows.js';
import { NO_HITS } from '../../src/modules/discovery/ranking/query.js';
import { buildSearchIndex } from '../../src/modules/discovery/ranking/search-index.js';
import type { IndexedEndpoint } from '../../src/modules/discovery/ranking/types.js';
import { loadWordVectors } from '../../src/modules/discovery/ranking/vectors.js';
import { fuseRelevance, slotVectors } from '../../src/modules/discovery/slot-vectors.js';
import { indexedEndpoint } from './helpers.js';

let seed = 7;
function randomVector(): StoredVector {
  return quantise(
    Float32Array.from({ length: 32 }, () => {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      return seed / 2 ** 32 - 0.5;
    }),
  );
}

function scores(slots: ReturnType<typeof slotVectors>, n: number, query: Float32Array) {
  const { dots, unit } = slots.rows.dotAll(query);
  return Array.from({ length: n }, (_, i) =>
    slots.has[i] === 1 ? (dots[i] as number) * unit * (slots.scales[i] as number) : null,
  );
}

/** What each slot should score, straight from the vectors (null: no vector). */
function expected(
  slots: Array<IndexedEndpoint | undefined>,
  vectorOf: (e: IndexedEndpoint) => StoredVector | undefined,
  query: Float32Array,
) {
  return slots.map((e) => {
    const v = e ? vectorOf(e) : undefined;
    return v ? v.q.reduce((sum, x, d) => sum + x * (query[d] as number), 0) * v.scale : null;
  });
}

function expectScores(actual: Array<number | null>, wanted: Array<number | null>) {
  expect(actual.map((x) => x === null)).toEqual(wanted.map((x) => x === null));
  actual.forEach((x, i) => {
    if (x !== null) expect(Math.abs(x - (wanted[i] as number))).toBeLessThan(1e-3);
  });
}

describe('slotVectors', () => {
  it('updated in place, scores every slot by its current vector after replacements, additions and removals', () => {
    const vectors = new Map<IndexedEndpoint, StoredVector>();
    const slots: Array<IndexedEndpoint | undefined> = Array.from({ length: 40 }, (_, i) =>
      indexedEndpoint(`e${i}`),
    );
    // Slots 5 and 6 wait for their vectors.
    for (const e of slots) if (e && e.slug !== 'e5' && e.slug !== 'e6') vectors.set(e, randomVector());
    const vectorOf = (e: IndexedEndpoint) => vectors.get(e);
    const query = Float32Array.from(randomVector().q, (x) => x / 127);

    let kept = slotVectors(slots as IndexedEndpoint[], vectorOf, 1);
    const matrix = kept.rows.matrix;
    // Generation 2: one slot gets a new endpoint (a new text: a new vector), one endpoint's vector
    // arrives, one endpoint is removed.
    slots[3] = indexedEndpoint('e3, rewritten');
    vectors.set(slots[3], randomVector());
    vectors.set(slots[5] as IndexedEndpoint, randomVector());
    slots[9] = undefined;
    kept = slotVectors(slots as IndexedEndpoint[], vectorOf, 2, kept);
    expect(kept.rows.matrix).toBe(matrix); // same memory: rewritten in place
    expectScores(scores(kept, 40, query), expected(slots, vectorOf, query));
    expect(kept.has[6]).toBe(0); // still waiting
    // Unchanged slots are not looked up again: an endpoint's vector never changes once it has one.
    const looked: IndexedEndpoint[] = [];
    const counting = (e: IndexedEndpoint) => {
      looked.push(e);
      return vectorOf(e);
    };
    slots[12] = indexedEndpoint('e12, rewritten');
    vectors.set(slots[12], randomVector());
    kept = slotVectors(slots as IndexedEndpoint[], counting, 3, kept);
    expect(looked.map((e) => e.slug)).toEqual(['e6', 'e12, rewritten']);
    expectScores(scores(kept, 40, query), expected(slots, vectorOf, query));
    // Generation 4: more endpoints than the matrix holds; it grows once, with room to spare.
    for (let i = 40; i < 60; i++) {
      const e = indexedEndpoint(`e${i}`);
      slots.push(e);
      vectors.set(e, randomVector());
    }
    kept = slotVectors(slots as IndexedEndpoint[], vectorOf, 4, kept);
    expect(kept.rows.rows).toBeGreaterThan(60);
    expectScores(scores(kept, 60, query), expected(slots, vectorOf, query));
    // Generation 5: the catalogue shrinks; rows past its end hold nothing.
    slots.length = 30;
    kept = slotVectors(slots as IndexedEndpoint[], vectorOf, 5, kept);
    expect([...kept.has.subarray(30)].every((h) => h === 0)).toBe(true);
    expectScores(scores(kept, 30, query), expected(slots, vectorOf, query));
  });
});

describe('fuseRelevance', () => {
  it('reports how far the closest endpoint in meaning stands out from the catalogue, filters or not', () => {
    const endpoints = Array.from({ length: 30 }, (_, i) => indexedEndpoint(`s${i}`));
    const index = buildSearchIndex(endpoints, loadWordVectors());
    const vectors = new Map<IndexedEndpoint, StoredVector>();
    // Slots 2 and 3 have no vector yet: they are left out of the best and the mean.
    for (const e of index.endpoints) if (e.slug !== 's2' && e.slug !== 's3') vectors.set(e, randomVector());
    const slots = slotVectors(index.endpoints, (e) => vectors.get(e), 1);
    const query = Float32Array.from(randomVector().q, (x) => x / 127);
    const cosines = expected(index.endpoints, (e) => vectors.get(e), query).filter((c) => c !== null);
    const standOut = Math.max(...cosines) - cosines.reduce((a, b) => a + b, 0) / cosines.length;
    const scale = { floor: 0, ceil: 1 };
    const all = fuseRelevance(index, NO_HITS, query, slots, 0.4, scale);
    expect(all.standOut).toBeCloseTo(standOut, 3);
    // A filter narrows the matches, not the catalogue the stand-out is measured against.
    const even = (i: number) => i % 2 === 0;
    const filtered = fuseRelevance(index, NO_HITS, query, slots, 0.4, scale, even);
    expect(filtered.standOut).toBeCloseTo(standOut, 3);
    expect(Array.from(filtered.slots).every(even)).toBe(true);
    expect(filtered.slots.length).toBeGreaterThan(0);
    // No vector at all: nothing to stand out from.
    const none = slotVectors(index.endpoints, () => undefined, 2);
    expect(fuseRelevance(index, NO_HITS, query, none, 0.4, scale).standOut).toBeUndefined();
  });
});
