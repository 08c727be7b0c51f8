// Text normalisation shared by the index and the queries: lowercase word tokens, English stop words out,
// Porter stems for matching. Surface words are kept too: the word vectors are keyed by surface form.
import { stemmer } from 'stemmer';

// A standard English stop-word list (function words only); content words are left to IDF.
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have having
  he her here hers herself him himself his how i if in into is it its itself just me more most my myself
  no nor not now of off on once only or other our ours ourselves out over own same she should so some such
  than that the their theirs them themselves then there these they this those through to too under until up
  very was we were what when where which while who whom why will with would you your yours yourself
  yourselves i'm i've i'd it's we're let's can't don't isn't there's what's that's get got want need like
  please tell give me also via using use`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Splits text into lowercase word tokens (letters/digits), keeping in-word apostrophes out. A word and a
 * number joined by a hyphen also yield the joined form, so "SHA-256" matches "sha256".
 */
export function words(text: string): string[] {
  const lower = text.toLowerCase().replace(/['’]s\b/g, '');
  const tokens = lower.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
  for (const m of lower.matchAll(/(\p{L}+)-(\p{N}+)(?![\p{L}\p{N}])/gu)) tokens.push(`${m[1]}${m[2]}`);
  return tokens;
}

/** "CloudVane" -> "Cloud Vane", "ip_intel-v2" -> "ip intel v2", "walletAddress" -> "wallet Address": names
 *  and identifiers carry words too. */
export function splitName(text: string): string {
  return text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_./]+/g, ' ');
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

const stemCache = new Map<string, string>();

/** Porter stem of a lowercase word (memoised: the vocabulary of a catalogue is small). */
export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = /^\p{L}+$/u.test(word) && word.length > 2 ? stemmer(word) : word;
    if (stemCache.size < 200_000) stemCache.set(word, s);
  }
  return s;
}

/** Content words of a text: tokens without stop words (and without lone one-letter tokens). */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => !isStopWord(w) && (w.length > 1 || /\d/.test(w)));
}

/**
 * Words of the query that look like values rather than asks: a capitalised word inside the sentence
 * (Nairobi, Claude), an all-capitals ticker (NVDA), anything with a digit (9am, 18-wheeler) or a dot
 * (acme.com, vitalik.eth). A catalogue rarely contains them, and it need not: "weather in Nairobi" is
 * fully answered by a weather endpoint. Unmatched, they do not count against the match.
 */
export function valueWords(query: string): Set<string> {
  const out = new Set<string>();
  query.split(/\s+/).forEach((token, i) => {
    const bare = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (!bare) return;
    const value =
      /\d/.test(bare) ||
      /[.@/]/.test(bare) ||
      (i > 0 && /^\p{Lu}\p{Ll}/u.test(bare)) ||
      (bare.length >= 2 && /^[\p{Lu}\p{N}]+$/u.test(bare) && /\p{Lu}/u.test(bare));
    if (value) for (const w of words(bare)) out.add(w);
  });
  return out;
}
