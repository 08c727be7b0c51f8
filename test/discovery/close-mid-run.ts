// Run in a child process by sentence-encoder.test.ts: closes the encoder while its worker is in the
// middle of a model run, several times. ONNX Runtime aborts the whole process when its thread is
// terminated mid-run, so the test checks this process's exit code and last line.
import { LocalSentenceEncoder } from '../../src/modules/discovery/sentence-encoder.js';

for (let i = 0; i < 5; i++) {
  const encoder = new LocalSentenceEncoder();
  await encoder.encode(['warm up'], true);
  const batch = encoder
    .encode(
      Array.from({ length: 200 }, (_, k) => `a long catalogue text number ${k} `.repeat(10)),
      false,
    )
    .then(
      () => 'finished',
      (err: Error) => err.message,
    );
  await new Promise((resolve) => setTimeout(resolve, 10 + 10 * i));
  await encoder.close();
  if ((await batch) !== 'sentence encoder closed') throw new Error(`batch ended with: ${await batch}`);
}
console.log('closed mid-run 5 times');
