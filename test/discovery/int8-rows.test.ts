// The WebAssembly scan of sentence vectors (int8-rows.ts): the same dot products as plain arithmetic, for
// any dimension count, without int32 overflow, and from a binary that is its committed source compiled;
// and the exact float cosines of the ranking (float-rows.ts), equal to dotAt's bit for bit.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FloatRows } from '../../src/modules/discovery/float-rows.js';
import { Int8Rows } from '../../src/modules/discovery/int8-rows.js';
import { dotAt } from '../../src/modules/discovery/ranking/vectors.js';

function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function unit(v: Float32Array) {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe('Int8Rows', () => {
  it.each([512, 100, 3])('matches plain arithmetic to 1e-4 of a unit cosine (%i dimensions)', (dims) => {
    const random = seeded(dims);
    const rows = new Int8Rows(300, dims);
    const plain: number[][] = [];
    for (let i = 0; i < rows.rows; i++) {
      const row = Array.from({ length: dims }, () => Math.round(random() * 254 - 127));
      plain.push(row);
      rows.matrix.set(row, i * rows.stride);
    }
    const query = unit(Float32Array.from({ length: dims }, () => random() - 0.5));
    const { dots, unit: scale } = rows.dotAll(query);
    plain.forEach((row, i) => {
      const exact = row.reduce((s, x, d) => s + x * (query[d] as number), 0);
      const norm = Math.hypot(...row);
      // Compared as cosines: what the ranking uses.
      expect(Math.abs((dots[i] as number) * scale - exact) / norm).toBeLessThan(1e-4);
    });
  });

  it('does not overflow int32 when every component is at its extreme', () => {
    const dims = 3072;
    const rows = new Int8Rows(2, dims);
    rows.matrix.fill(127, 0, dims);
    rows.matrix.fill(-127, rows.stride, rows.stride + dims);
    const query = new Float32Array(dims).fill(1 / Math.sqrt(dims));
    const { dots, unit: scale } = rows.dotAll(query);
    // As cosines (row norm 127·√dims): +1 and −1, where an overflowed sum would wrap to the other sign.
    const norm = 127 * Math.sqrt(dims);
    expect(Math.abs(((dots[0] as number) * scale) / norm - 1)).toBeLessThan(1e-4);
    expect(Math.abs(((dots[1] as number) * scale) / norm + 1)).toBeLessThan(1e-4);
  });

  it('rejects a query of another dimension count', () => {
    expect(() => new Int8Rows(1, 16).dotAll(new Float32Array(8))).toThrow(/8 dimensions, rows 16/);
  });

  it('ships the binary compiled from its source (npm run build:wasm)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/build-wasm.mjs', '--check']);
    expect(stdout).toContain('matches its source');
  });
});

describe('FloatRows (the exact cosines of the ranking, in WebAssembly)', () => {
  it.each([100, 7, 1])('gives what dotAt gives, bit for bit (%i dimensions)', (dims) => {
    const random = seeded(dims + 1);
    const vector = () => unit(Float32Array.from({ length: dims }, () => random() * 2 - 1));
    const rows = new FloatRows(dims, 50);
    const plain = new Float32Array(50 * dims);
    for (let r = 0; r < 50; r++) {
      const v = vector();
      rows.matrix.set(v, r * dims);
      plain.set(v, r * dims);
    }
    for (let k = 0; k < 5; k++) {
      const query = vector();
      rows.setQuery(query);
      for (let r = 0; r < 50; r++) expect(Object.is(rows.dot(r), dotAt(query, plain, r * dims))).toBe(true);
    }
  });

  it('keeps its rows when it grows, and dots the rows added after', () => {
    const dims = 100;
    const rows = new FloatRows(dims, 16);
    const first = Float32Array.from({ length: dims }, (_, d) => (d % 5) - 2);
    rows.matrix.set(first, 3 * dims);
    rows.ensure(5_000); // past the first 64 KiB page of the module's memory
    const last = Float32Array.from({ length: dims }, (_, d) => d / 100);
    rows.matrix.set(last, 4_999 * dims);
    rows.setQuery(first);
    expect(rows.dot(3)).toBe(dotAt(first, first, 0));
    expect(rows.dot(4_999)).toBe(dotAt(first, last, 0));
    expect(() => rows.setQuery(new Float32Array(3))).toThrow(/3 dimensions/);
  });
});
