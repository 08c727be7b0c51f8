// The int8 bounds that let the ranking skip exact cosines (row-bounds.ts): never below the exact dot
// product, close above it, over a range of rows, and kept when the matrix grows or a row is rewritten.
import { describe, expect, it } from 'vitest';
import { RowBounds } from '../../src/modules/discovery/ranking/row-bounds.js';

function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomUnit(random: () => number, dims: number) {
  const v = Float32Array.from({ length: dims }, () => random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, d) => s + x * (b[d] as number), 0);

describe('RowBounds', () => {
  it.each([100, 7])('bounds every row from above, within 0.05 (%i dimensions)', (dims) => {
    const random = seeded(dims);
    const bounds = new RowBounds(dims);
    // Set one row at a time, as the index does: the matrix grows many times on the way.
    const rows = Array.from({ length: 500 }, () => randomUnit(random, dims));
    for (const [r, v] of rows.entries()) bounds.set(r, v);
    expect(bounds.capacity).toBeGreaterThanOrEqual(500);
    let closest = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 20; k++) {
      const query = randomUnit(random, dims);
      const upper = bounds.upperBounds(query, 0, rows.length);
      rows.forEach((v, r) => {
        const exact = dot(query, v);
        const bound = upper[r] as number;
        expect(bound + 1e-9).toBeGreaterThanOrEqual(exact);
        expect(bound - exact).toBeLessThan(0.05);
        closest = Math.min(closest, bound - exact);
      });
    }
    // A bound that is not tight at all would make the test above pass for the wrong reason.
    expect(closest).toBeLessThan(0.02);
  });

  it('computes a sub-range only, and a rewritten row bounds its new vector', () => {
    const random = seeded(1);
    const bounds = new RowBounds(16);
    const rows = Array.from({ length: 40 }, () => randomUnit(random, 16));
    for (const [r, v] of rows.entries()) bounds.set(r, v);
    const query = rows[5] as Float32Array;
    bounds.set(
      5,
      query.map((x) => -x),
    );
    const upper = bounds.upperBounds(query, 5, 10);
    expect(upper[5]).toBeLessThan(-0.9);
    expect(upper[6]).toBeGreaterThanOrEqual(dot(query, rows[6] as Float32Array) - 1e-9);
    // A query of zeros bounds every row at 0.
    expect([...bounds.upperBounds(new Float32Array(16), 0, 40).subarray(0, 40)]).toEqual(Array(40).fill(0));
  });
});
