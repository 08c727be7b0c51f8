// Fits the projection late interaction reads token rows through (src/modules/discovery/late-tokens.mjs):
// the TOKEN_DIMS directions in which MiniLM's last-layer rows of content tokens vary most (principal
// directions of their second moment, by subspace iteration), over random phrases of whole words from the
// model's own vocabulary — general English, never a catalogue or query text. Deterministic (fixed seed).
//   npx tsx bench/discovery-prepare-projection.ts [phrases=3000]
import { existsSync, writeFileSync } from 'node:fs';
import { contentToken, MODEL_DIMS, TOKEN_DIMS } from '../src/modules/discovery/late-tokens.mjs';
import { loadMiniLmEncoder } from '../src/modules/discovery/minilm-onnx.mjs';

const PHRASES = Number(process.argv[2] ?? 3000);
const ITERATIONS = 80;
const OUT = new URL('../src/modules/discovery/resources/minilm-token-projection.bin', import.meta.url);

/** mulberry32: a small seeded generator, so that the resource can be rebuilt byte for byte. */
function seeded(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The model's graph carries the projection (its raw rows, read here, do not depend on it): a first run
// starts from zeros.
if (!existsSync(OUT)) writeFileSync(OUT, new Uint8Array(TOKEN_DIMS * MODEL_DIMS * 4));
const model = await loadMiniLmEncoder();
const words = [...model.tokenizer.vocab.keys()].filter((w) => /^[a-z]{3,}$/.test(w));
const random = seeded(20261127);
const moment = new Float64Array(MODEL_DIMS * MODEL_DIMS);
let count = 0;
const started = performance.now();
for (let p = 0; p < PHRASES; p++) {
  const length = 3 + Math.floor(random() * 8);
  const phrase = Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(' ');
  const { ids, rows } = await model.rows(phrase);
  ids.forEach((id, t) => {
    if (!contentToken(model.tokenizer.tokenOf(id))) return;
    const row = rows.subarray(t * MODEL_DIMS, (t + 1) * MODEL_DIMS);
    let norm = 0;
    for (let d = 0; d < MODEL_DIMS; d++) norm += (row[d] as number) ** 2;
    const unit = Float64Array.from(row, (x) => x / Math.sqrt(norm));
    for (let i = 0; i < MODEL_DIMS; i++) {
      const ui = unit[i] as number;
      for (let j = 0; j < MODEL_DIMS; j++)
        moment[i * MODEL_DIMS + j] = (moment[i * MODEL_DIMS + j] as number) + ui * (unit[j] as number);
    }
    count += 1;
  });
}
console.log(
  `${PHRASES} phrases, ${count} token rows, ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

// Subspace iteration: Q ← orthonormalise(M·Q), from a seeded random start.
let basis = Array.from({ length: TOKEN_DIMS }, () =>
  Float64Array.from({ length: MODEL_DIMS }, () => random() - 0.5),
);
for (let it = 0; it < ITERATIONS; it++) {
  basis = basis.map((q) => {
    const z = new Float64Array(MODEL_DIMS);
    for (let i = 0; i < MODEL_DIMS; i++) {
      let dot = 0;
      for (let j = 0; j < MODEL_DIMS; j++) dot += (moment[i * MODEL_DIMS + j] as number) * (q[j] as number);
      z[i] = dot;
    }
    return z;
  });
  basis.forEach((z, k) => {
    for (let l = 0; l < k; l++) {
      const y = basis[l] as Float64Array;
      let dot = 0;
      for (let i = 0; i < MODEL_DIMS; i++) dot += (z[i] as number) * (y[i] as number);
      for (let i = 0; i < MODEL_DIMS; i++) z[i] = (z[i] as number) - dot * (y[i] as number);
    }
    let norm = 0;
    for (let i = 0; i < MODEL_DIMS; i++) norm += (z[i] as number) ** 2;
    for (let i = 0; i < MODEL_DIMS; i++) z[i] = (z[i] as number) / Math.sqrt(norm);
  });
}
// Share of the rows' second moment the kept directions hold (the trace is the mean squared norm, 1).
let kept = 0;
for (const q of basis)
  for (let i = 0; i < MODEL_DIMS; i++) {
    let dot = 0;
    for (let j = 0; j < MODEL_DIMS; j++) dot += (moment[i * MODEL_DIMS + j] as number) * (q[j] as number);
    kept += (q[i] as number) * dot;
  }
console.log(
  `${TOKEN_DIMS} directions hold ${((100 * kept) / count).toFixed(1)} % of the rows' second moment`,
);
const out = new Float32Array(TOKEN_DIMS * MODEL_DIMS);
basis.forEach((q, k) => {
  out.set(Float32Array.from(q), k * MODEL_DIMS);
});
writeFileSync(OUT, new Uint8Array(out.buffer));
console.log(`wrote ${OUT.pathname} (${out.byteLength} bytes)`);
process.exit(0);
