// Word vectors (GloVe, prepared at build time by bench/discovery-prepare-vectors.ts) for meaning-based
// matching: query words are expanded to catalogue words with similar vectors, and texts get a mean vector.
import { readFileSync } from 'node:fs';

export interface WordVectors {
  dims: number;
  /** Unit-length vector of a word, or undefined when the word is not in the vocabulary. */
  get(word: string): Float32Array | undefined;
  /**
   * Smooth-inverse-frequency weight a / (a + p(word)) (Arora et al. 2017), with p from the word's
   * frequency rank in the source corpus (Zipf). Common words weigh little; unknown words weigh 1.
   */
  sif(word: string): number;
  /** Frequency rank of the word in the source corpus (0 = most frequent), undefined when unknown. */
  rank(word: string): number | undefined;
  /** Vocabulary words starting with `letter`, most frequent first (for spelling correction). */
  wordsStartingWith(letter: string): readonly string[];
}

/** SIF smoothing constant; p(word) ~ 1 / (rank * ln(vocabulary of the source corpus)). */
const SIF_A = 3e-4;
const SOURCE_HARMONIC = Math.log(400_000) + 0.5772;

export const DEFAULT_VECTORS_FILE = new URL('../resources/word-vectors.bin', import.meta.url);

export function loadWordVectors(file: string | URL = DEFAULT_VECTORS_FILE): WordVectors {
  const buf = readFileSync(file);
  const headerLen = buf.readUInt32LE(0);
  const wordsLen = buf.readUInt32LE(4);
  const header = JSON.parse(buf.subarray(8, 8 + headerLen).toString()) as { dims: number; count: number };
  const wordList = buf
    .subarray(8 + headerLen, 8 + headerLen + wordsLen)
    .toString()
    .split('\n');
  const raw = new Int8Array(
    buf.buffer,
    buf.byteOffset + 8 + headerLen + wordsLen,
    header.count * header.dims,
  );
  const { dims } = header;
  const index = new Map<string, number>();
  for (const [i, w] of wordList.entries()) index.set(w, i);
  const cache = new Map<number, Float32Array>();
  let byInitial: Map<string, string[]> | undefined;
  return {
    rank: (word) => index.get(word),
    wordsStartingWith(letter) {
      if (!byInitial) {
        byInitial = new Map();
        for (const w of wordList) {
          const list = byInitial.get(w.charAt(0));
          if (list) list.push(w);
          else byInitial.set(w.charAt(0), [w]);
        }
      }
      return byInitial.get(letter) ?? [];
    },
    dims,
    get(word) {
      const i = index.get(word);
      if (i === undefined) return undefined;
      let v = cache.get(i);
      if (!v) {
        v = new Float32Array(dims);
        let norm = 0;
        for (let d = 0; d < dims; d++) {
          const x = raw[i * dims + d] as number;
          v[d] = x;
          norm += x * x;
        }
        norm = Math.sqrt(norm) || 1;
        for (let d = 0; d < dims; d++) v[d] = (v[d] as number) / norm;
        cache.set(i, v);
      }
      return v;
    },
    sif(word) {
      const i = index.get(word);
      if (i === undefined) return 1;
      const p = 1 / ((i + 1) * SOURCE_HARMONIC);
      return SIF_A / (SIF_A + p);
    },
  };
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/**
 * The dot product of `a` with `b[off … off + a.length)`, summed in four interleaved running sums: their
 * additions do not wait for each other, so the loop runs ~2–3× faster than with one running sum (whose
 * every addition waits for the one before). The result may differ from a single sum in the last bit.
 */
export function dotAt(a: Float32Array, b: Float32Array, off: number): number {
  const n = a.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (; d + 3 < n; d += 4) {
    s0 += (a[d] as number) * (b[off + d] as number);
    s1 += (a[d + 1] as number) * (b[off + d + 1] as number);
    s2 += (a[d + 2] as number) * (b[off + d + 2] as number);
    s3 += (a[d + 3] as number) * (b[off + d + 3] as number);
  }
  for (; d < n; d++) s0 += (a[d] as number) * (b[off + d] as number);
  return s0 + s1 + (s2 + s3);
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalise(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v));
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / n;
  return v;
}
