// English dictionary (stems of WordNet's single-word lemmas, resources/english-stems.txt, ~0.5 MB): tells
// a real but rare word ("redact", "landline") from a misspelling, so typo correction leaves it alone.
import { readFileSync } from 'node:fs';

export const DEFAULT_DICTIONARY_FILE = new URL('../resources/english-stems.txt', import.meta.url);

export function loadDictionary(file: string | URL = DEFAULT_DICTIONARY_FILE): ReadonlySet<string> {
  const stems = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.length > 0 && !line.startsWith('#')) stems.add(line);
  }
  return stems;
}
