// Late interaction's pure functions (ranking/late-interaction.ts): the MaxSim score and the order it gives
// the best hits. The rows the model gives are checked in sentence-encoder.test.ts.
import { describe, expect, it } from 'vitest';
import { quantise, type StoredVector } from '../../src/modules/discovery/int8-rows.js';
import { TOKEN_DIMS } from '../../src/modules/discovery/late-tokens.mjs';
import { LATE_TUNING, lateOrder, lateScores } from '../../src/modules/discovery/ranking/late-interaction.js';
import type { Hits } from '../../src/modules/discovery/ranking/query.js';

/** Row-major unit rows, row r along axis `axes[r]`. */
function rows(...axes: number[]): Float32Array {
  const out = new Float32Array(axes.length * TOKEN_DIMS);
  axes.forEach((axis, r) => {
    out[r * TOKEN_DIMS + axis] = 1;
  });
  return out;
}
const stored = (...axes: number[]): StoredVector => quantise(rows(...axes));
const lateScore = (query: Float32Array, endpoint: StoredVector) => lateScores(query, [endpoint])[0];
const hits = (relevance: number[]): Hits => ({
  slots: Int32Array.from(relevance, (_, i) => i),
  relevance: Float64Array.from(relevance),
});

describe('lateScore', () => {
  it('is the mean over query rows of the best match among the endpoint rows', () => {
    expect(lateScore(rows(1, 2), stored(7, 2, 1))).toBeCloseTo(1, 6);
    expect(lateScore(rows(1, 2), stored(2, 9))).toBeCloseTo(0.5, 6);
    expect(lateScore(rows(1, 2), stored(5, 9))).toBeCloseTo(0, 6);
  });

  it('is 0 for a query or an endpoint without rows', () => {
    expect(lateScore(new Float32Array(0), stored(1))).toBe(0);
    expect(lateScore(rows(1), { q: new Int8Array(0), scale: 1 })).toBe(0);
  });

  it('scores many endpoints of different lengths at once as each would be scored alone, in plain arithmetic', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647 - 0.5;
    };
    const unitRows = (count: number) => {
      const out = new Float32Array(count * TOKEN_DIMS);
      for (let r = 0; r < count; r++) {
        const row = out.subarray(r * TOKEN_DIMS, (r + 1) * TOKEN_DIMS);
        for (let k = 0; k < TOKEN_DIMS; k++) row[k] = random();
        const norm = Math.hypot(...row);
        for (let k = 0; k < TOKEN_DIMS; k++) row[k] = (row[k] as number) / norm;
      }
      return out;
    };
    const query = unitRows(7);
    // More rows in all than the scratch matrix first holds (2,048), and one endpoint without rows.
    const endpoints = [3, 64, 0, 1, 40, ...Array.from({ length: 40 }, (_, i) => 20 + i)].map((n) =>
      quantise(unitRows(n)),
    );
    const plain = endpoints.map((e) => {
      const m = e.q.length / TOKEN_DIMS;
      if (m === 0) return 0;
      let sum = 0;
      for (let i = 0; i < 7; i++) {
        let best = Number.NEGATIVE_INFINITY;
        for (let j = 0; j < m; j++) {
          let dot = 0;
          for (let k = 0; k < TOKEN_DIMS; k++)
            dot += (query[i * TOKEN_DIMS + k] as number) * (e.q[j * TOKEN_DIMS + k] as number) * e.scale;
          best = Math.max(best, dot);
        }
        sum += best;
      }
      return sum / 7;
    });
    const scores = lateScores(query, endpoints);
    expect(scores).toHaveLength(endpoints.length);
    scores.forEach((s, k) => {
      expect(Math.abs(s - (plain[k] as number))).toBeLessThan(1e-3);
    });
    expect(scores[2]).toBe(0);
  });
});

describe('lateOrder', () => {
  const tuning = { weight: 0.5, floor: 0, ceil: 1, depth: 2 };

  it('reorders the best hits by their late score, and keeps every other hit below them', () => {
    // Slot 0 is the most relevant but its words match nothing of the query's; slot 1 matches all.
    const late = [stored(9), stored(1, 2), stored(1, 2)];
    const order = lateOrder(hits([0.9, 0.8, 0.79]), rows(1, 2), (slot) => late[slot], tuning) as Float64Array;
    expect(order[0]).toBeCloseTo(0.45, 6); // 0.5 · 0.9 + 0.5 · 0
    expect(order[1]).toBeCloseTo(0.9, 6); // 0.5 · 0.8 + 0.5 · 1
    // Slot 2 is past the depth: as if its late score were 0, although its rows would match fully.
    expect(order[2]).toBeCloseTo(0.395, 6);
    expect(order[2] as number).toBeLessThan(order[0] as number);
  });

  it('picks the depth most relevant hits wherever they are, the lower slot first among equals', () => {
    const late = [stored(9), stored(9), stored(1), stored(1)];
    const order = lateOrder(hits([0.2, 0.5, 0.5, 0.9]), rows(1), (slot) => late[slot], {
      ...tuning,
      depth: 2,
    }) as Float64Array;
    // Slots 3 (0.9) and 1 (0.5, before slot 2) are reranked; slot 1 matches nothing.
    expect(Array.from(order, (x) => Number(x.toFixed(4)))).toEqual([0.1, 0.25, 0.25, 0.95]);
  });

  it('gives no order when one of the best hits has no rows yet, so that no ranking mixes the two', () => {
    const late = [stored(1), undefined, stored(1)];
    expect(lateOrder(hits([0.9, 0.8, 0.1]), rows(1), (slot) => late[slot], tuning)).toBeUndefined();
    // Past the depth a missing row does not matter.
    expect(lateOrder(hits([0.9, 0.1, 0.8]), rows(1), (slot) => late[slot], tuning)).toBeDefined();
  });

  it('maps the late score from [floor, ceil] onto [0, 1], clamped', () => {
    const order = lateOrder(hits([0.5, 0.5]), rows(1, 2), () => stored(2), {
      weight: 1,
      floor: 0.25,
      ceil: 0.75,
      depth: 2,
    }) as Float64Array;
    expect(order[0]).toBeCloseTo(0.5, 6); // late 0.5 → (0.5 − 0.25) / 0.5
    expect(lateOrder(hits([0.5]), rows(2), () => stored(2), { ...LATE_TUNING, weight: 1 })?.[0]).toBe(1);
  });
});
