// How the encoder worker's models run (encoder-worker.mjs, use-lite-onnx.mjs, minilm-onnx.mjs): an ONNX
// Runtime session on one thread, and texts encoded one run each, every output scaled to unit length.
// Plain JavaScript, for the encoder's worker thread.

/** One thread: the service's own threads need the other cores, and a text is a few small matrices. */
export function createSession(ort, model) {
  return ort.InferenceSession.create(model, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
}

/**
 * A model that encodes one text per run: `run(text, i, late)` gives its output vector (`dims` numbers, any
 * length), `embed(texts)` one unit vector per text, row-major. `stop()` true gives up between two texts
 * (the worker is closing). `late`, an array, is handed to `run`: a model that gives late-interaction rows
 * (late-tokens.mjs) sets `late[i]` for text i; the others leave it empty.
 */
export function oneTextPerRun(engine, dims, run) {
  return {
    engine,
    dims,
    async embed(texts, stop = () => false, late = []) {
      const vectors = new Float32Array(texts.length * dims);
      for (let i = 0; i < texts.length; i++) {
        if (stop()) throw new Error('sentence encoder closing');
        const v = await run(texts[i], i, late);
        let norm = 0;
        for (let d = 0; d < dims; d++) norm += v[d] * v[d];
        const scale = 1 / Math.sqrt(Math.max(norm, 1e-24));
        for (let d = 0; d < dims; d++) vectors[i * dims + d] = v[d] * scale;
      }
      return vectors;
    },
  };
}
