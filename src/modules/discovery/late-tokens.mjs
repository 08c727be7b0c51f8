// The token rows late interaction reads (ranking/late-interaction.ts): MiniLM's last-layer rows of a text's
// content tokens (not [CLS], [SEP] or punctuation), projected from 384 onto the 96 directions in which
// such rows vary most in general English (resources/minilm-token-projection.bin, fitted by
// bench/discovery-prepare-projection.ts on random phrases, never on catalogue or query texts; the model's
// graph multiplies by it, minilm-onnx.mjs), each row scaled to unit length. 96 numbers a token keep the
// late-interaction ranking of all 384 (docs/discovery-history.md, "Tenth round") at a quarter of the memory.
// Plain JavaScript, for the encoder's worker thread.
import { readFileSync } from 'node:fs';

/** MiniLM's width (minilm-onnx.mjs, which imports this module: the constant lives here). */
export const MODEL_DIMS = 384;
export const TOKEN_DIMS = 96;
/** A text's rows beyond this many are dropped (the end of a long provider description). */
export const MAX_TOKEN_ROWS = 64;

let projection;
/** The projection, TOKEN_DIMS rows of MODEL_DIMS (row-major float32), read once. */
export function tokenProjection() {
  projection ??= new Float32Array(
    readFileSync(new URL('./resources/minilm-token-projection.bin', import.meta.url)).buffer.slice(0),
  );
  if (projection.length !== TOKEN_DIMS * MODEL_DIMS) throw new Error('token projection: wrong size');
  return projection;
}

/** A token that carries meaning: a word or a number, not [CLS], [SEP] or a punctuation mark. */
export const contentToken = (token) => /^(##)?[\p{L}\p{N}]/u.test(token) && !token.startsWith('[');

/**
 * The unit-length projected rows of the content tokens among `ids` (`projected`: T × TOKEN_DIMS,
 * row-major, as the model's graph computes them), at most MAX_TOKEN_ROWS of them, as one row-major
 * Float32Array (count × TOKEN_DIMS). `tokenOf(id)` gives a token's text.
 */
export function lateRows(ids, projected, tokenOf) {
  const kept = [];
  ids.forEach((id, t) => {
    if (kept.length < MAX_TOKEN_ROWS && contentToken(tokenOf(id))) kept.push(t);
  });
  const out = new Float32Array(kept.length * TOKEN_DIMS);
  kept.forEach((t, r) => {
    const row = projected.subarray(t * TOKEN_DIMS, (t + 1) * TOKEN_DIMS);
    let norm = 0;
    for (const x of row) norm += x * x;
    const scale = 1 / Math.sqrt(Math.max(norm, 1e-24));
    for (let k = 0; k < TOKEN_DIMS; k++) out[r * TOKEN_DIMS + k] = row[k] * scale;
  });
  return out;
}
