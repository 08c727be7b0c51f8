// Unit vectors kept a second time as int8 rows, scanned in WebAssembly SIMD (../int8-rows.ts), to bound
// every row's cosine with a query from above at a small fraction of the cost of computing it. The ranking
// computes an exact (float64) cosine only where the bound says it may matter, so its output is the one a
// plain scan gives, bit for bit. Used twice in query.ts: the similar-word search over the vocabulary
// (a new query word against every stem: 1–3 ms per word in JavaScript at 10,000 endpoints) and the
// meaning cosine of the candidates (thousands per query, most of them below what could lift them).
import { Int8Rows, quantise } from '../int8-rows.js';

/** Rows of unit vectors as int8, each with its own scale; grows one row at a time. */
export class RowBounds {
  private rows: Int8Rows;
  /** Row r's component d ≈ `matrix[r·stride + d] · scales[r]`, to within scales[r] / 2. */
  private scales = new Float64Array(0);
  /** Row r: the L1 norm of its int8 approximation (Σ|int8| · scale). */
  private l1 = new Float64Array(0);
  private bounds = new Float64Array(0);

  /** `capacity`: rows to make room for at once (each growth instantiates the kernel anew). */
  constructor(
    readonly dims: number,
    capacity = 0,
  ) {
    this.rows = new Int8Rows(0, dims);
    if (capacity > 0) this.grow(capacity);
  }

  /** Stores row `row`'s vector (a new row, or a changed one), growing the matrix when needed. */
  set(row: number, vector: Float32Array) {
    if (row >= this.rows.rows) this.grow(Math.max(row + 1, this.rows.rows * 2 + 64));
    const { q, scale } = quantise(vector);
    this.rows.matrix.set(q, row * this.rows.stride);
    let sum = 0;
    for (const v of q) sum += Math.abs(v);
    this.scales[row] = scale;
    this.l1[row] = sum * scale;
  }

  /**
   * For rows [from, to): an upper bound of each row's dot product with `query` (entry r of the returned
   * array, which the next call reuses; a row never `set` gives 0, and rows past `capacity` are not
   * computed: their entries are undefined). With q' the query as the kernel scaled
   * it (each component within unit / 2) and r' the int8 row (within scale / 2),
   * q·r − q'·r' = q·(r − r') + (q − q')·r', at most ‖q‖₁·scale/2 + unit/2·‖r'‖₁. Add a margin of 1e-9 for
   * the rounding of the float64 sums compared with it.
   */
  upperBounds(query: Float32Array, from: number, to: number): Float64Array {
    const out = this.bounds;
    to = Math.min(to, this.rows.rows);
    if (from >= to) return out;
    let queryL1 = 0;
    for (const x of query) queryL1 += Math.abs(x);
    const { dots, unit } = this.rows.dotRange(query, from, to);
    const { scales, l1 } = this;
    for (let r = from; r < to; r++) {
      const scale = scales[r] as number;
      out[r] = (dots[r] as number) * unit * scale + (queryL1 * scale + unit * (l1[r] as number)) / 2;
    }
    return out;
  }

  /** Rows the matrix holds (set or not). */
  get capacity(): number {
    return this.rows.rows;
  }

  private grow(capacity: number) {
    const grown = new Int8Rows(capacity, this.dims);
    grown.matrix.set(this.rows.matrix);
    this.rows = grown;
    const widen = (a: Float64Array) => {
      const b = new Float64Array(capacity);
      b.set(a);
      return b;
    };
    this.scales = widen(this.scales);
    this.l1 = widen(this.l1);
    this.bounds = new Float64Array(capacity);
  }
}
