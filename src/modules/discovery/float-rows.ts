// Float32 row vectors kept in a WebAssembly module's memory, so that the dot product of a query with one
// row runs in WebAssembly SIMD (resources/int8-dots.wat, `dot_f32`): about four times the JavaScript
// loop, and equal to ranking/vectors.ts `dotAt` bit for bit (same float64 sums in the same order).
import { type DotsExports, dotsModule } from './int8-rows.js';

const PAGE = 65_536;

export class FloatRows {
  private readonly kernel: DotsExports;
  /** Byte offset of row 0; the query sits before it. */
  private readonly base: number;
  private capacity = 0;
  /**
   * Rows, row-major, `dims` apart: write and read them here. A view of the module's memory, replaced
   * when `ensure` grows it (hold it no longer than a synchronous step).
   */
  matrix: Float32Array = new Float32Array(0);
  private query: Float32Array = new Float32Array(0);

  constructor(
    readonly dims: number,
    rows: number,
  ) {
    this.kernel = new WebAssembly.Instance(dotsModule).exports as unknown as DotsExports;
    this.base = Math.ceil((dims * 4) / 16) * 16;
    this.ensure(rows);
  }

  /** Room for at least `rows` rows (growing by half at least, to amortise); contents are kept. */
  ensure(rows: number) {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, Math.ceil(this.capacity * 1.5) + 16);
    const { memory } = this.kernel;
    const missing =
      Math.ceil((this.base + capacity * this.dims * 4) / PAGE) - memory.buffer.byteLength / PAGE;
    if (missing > 0) memory.grow(missing);
    this.capacity = capacity;
    this.query = new Float32Array(memory.buffer, 0, this.dims);
    this.matrix = new Float32Array(memory.buffer, this.base, capacity * this.dims);
  }

  /** The vector that `dot` multiplies rows with, until the next call. */
  setQuery(vector: Float32Array) {
    if (vector.length !== this.dims)
      throw new Error(`query has ${vector.length} dimensions, rows ${this.dims}`);
    this.query.set(vector);
  }

  /** The dot product of the query set last with row `row` (< the capacity). */
  dot(row: number): number {
    return this.kernel.dot_f32(0, this.base + row * this.dims * 4, this.dims);
  }
}
