// A matrix of int8 vectors whose dot products with one query are computed in WebAssembly SIMD
// (resources/int8-dots.wat): about five times the plain JavaScript loop, which V8 does not vectorise.
// Discovery scans every endpoint's sentence vector for each uncached query; at 10,000 endpoints the scan
// took ~5 ms in JavaScript and ~1 ms here.
import { readFileSync } from 'node:fs';

/** The kernels' module (resources/int8-dots.wat), compiled once; each user instantiates its own memory. */
export const dotsModule = new WebAssembly.Module(
  readFileSync(new URL('./resources/int8-dots.wasm', import.meta.url)),
);

export interface DotsExports {
  memory: WebAssembly.Memory;
  dots(query: number, matrix: number, rows: number, stride: number, out: number): void;
  dot_f32(query: number, row: number, dims: number): number;
}

const PAGE = 65_536;
/** The query's largest component becomes this int16: ~1e-4 relative precision, far from overflow. */
const QUERY_UNIT = 16_383;

export class Int8Rows {
  /** Bytes per row: dims rounded up to the 16 lanes the kernel reads at once (padding stays zero). */
  readonly stride: number;
  /** Row-major rows, `stride` apart, in the kernel's memory: write each row's components here. */
  readonly matrix: Int8Array;
  private readonly query: Int16Array;
  private readonly out: Int32Array;
  private readonly kernel: DotsExports;

  constructor(
    readonly rows: number,
    readonly dims: number,
  ) {
    this.stride = Math.ceil(dims / 16) * 16;
    // Layout: query (int16) | out (int32) | matrix (int8); each part starts 16-byte aligned.
    const queryBytes = this.stride * 2;
    const outBytes = Math.ceil((rows * 4) / 16) * 16;
    const total = queryBytes + outBytes + rows * this.stride;
    this.kernel = new WebAssembly.Instance(dotsModule).exports as unknown as DotsExports;
    const { memory } = this.kernel;
    const missing = Math.ceil(total / PAGE) - memory.buffer.byteLength / PAGE;
    if (missing > 0) memory.grow(missing);
    this.query = new Int16Array(memory.buffer, 0, this.stride);
    this.out = new Int32Array(memory.buffer, queryBytes, rows);
    this.matrix = new Int8Array(memory.buffer, queryBytes + outBytes, rows * this.stride);
  }

  /**
   * The dot product of `query` with every row: row i's is `dots[i] * unit`. The query is scaled to int16
   * so that its largest component is QUERY_UNIT, or less when a sum of |query · 127| could overflow int32.
   * The returned array is reused by the next call.
   */
  dotAll(query: Float32Array): { dots: Int32Array; unit: number } {
    return this.dotRange(query, 0, this.rows);
  }

  /** As `dotAll`, for rows [from, to) only: row i's product is `dots[i]` (the others are stale). */
  dotRange(query: Float32Array, from: number, to: number): { dots: Int32Array; unit: number } {
    if (query.length !== this.dims)
      throw new Error(`query has ${query.length} dimensions, rows ${this.dims}`);
    if (from < 0 || to > this.rows || from > to) throw new Error(`rows [${from}, ${to}) of ${this.rows}`);
    let max = 0;
    let sum = 0;
    for (const x of query) {
      const a = Math.abs(x);
      if (a > max) max = a;
      sum += a;
    }
    if (max === 0) return { dots: this.out.fill(0, from, to), unit: 0 };
    const factor = Math.min(QUERY_UNIT / max, (2 ** 31 - 1) / (127 * sum));
    const q = this.query;
    for (let d = 0; d < this.dims; d++) q[d] = Math.round((query[d] as number) * factor);
    this.kernel.dots(
      q.byteOffset,
      this.matrix.byteOffset + from * this.stride,
      to - from,
      this.stride,
      this.out.byteOffset + from * 4,
    );
    return { dots: this.out, unit: 1 / factor };
  }
}

/** A unit vector stored as int8 (512 bytes for 512 dimensions): cosine survives per-vector scaling. */
export interface StoredVector {
  q: Int8Array;
  scale: number;
  /** The text's late-interaction rows (late-tokens.mjs), the same way, when the encoder gave them. */
  late?: StoredVector;
}

export function quantise(v: Float32Array): StoredVector {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  // float4 precision, as stored: a vector read back ranks exactly as the one encoded here.
  const scale = Math.fround(max > 0 ? max / 127 : 1);
  const q = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) q[i] = Math.round((v[i] as number) / scale);
  return { q, scale };
}
