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

/**
 * A quoted span of a query: a payload the caller wants processed ("similarity between 'reset my password'
 * and ...", "articles mentioning \"Silicon Valley Bank\""), not the capability asked for. It opens after
 * the start, a space, "(" or ":" and closes before the end, a space or punctuation; a single-quoted span
 * may hold apostrophes followed by a letter (won't).
 */
const QUOTED_SPAN = /(^|[\s(:])(?:["“][^"“”]+["”]|['‘](?:[^'‘’]|['’](?=\p{L}))+['’])(?=$|[\s).,?:;!-])/gu;

/** The query without its quoted payloads, as it is matched and encoded; the query itself when nothing else is left. */
export function withoutQuotedText(query: string): string {
  const asked = query.replace(QUOTED_SPAN, '$1 ').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(asked) ? asked : query;
}

/**
 * A message named by its channel, as a verb: "text +1 415 555 0123 …", "email bob@acme.com …", "ring him
 * at 6pm …" ask to send one (or to place a call), which the noun alone ("text", "email") does not say: it
 * matches text analysis and e-mail verification as well. What each such verb asks for ("mail" is not one:
 * "mail a paper letter" is post).
 */
const CHANNEL_VERBS: Record<string, string> = {
  text: 'send sms',
  txt: 'send sms',
  sms: 'send sms',
  email: 'send email',
  'e-mail': 'send email',
  fax: 'send fax',
  ring: 'call',
  phone: 'call',
};
/**
 * The verb stands where a request's verb does (first in a sentence, after "please", "can you", …) and is
 * followed by whom or what it goes to — a value (`+44…`, `(415)…`, `bob@…`) or a determiner or pronoun
 * ("all 80 members", "a customer", "him") — so "text to speech", "email deliverability" and "sms otp"
 * keep their nouns.
 */
const CHANNEL_REQUEST = new RegExp(
  `(^|[.!?;]\\s+|\\b(?:please|can you|could you|would you)\\s+)(${Object.keys(CHANNEL_VERBS).join('|')})\\s+` +
    '(?=[+(]?\\d|[^\\s@]+@|(?:a|an|the|all|every|each|everyone|everybody|my|our|your|his|her|their|him|them|me|us|this|these|those)\\b)',
  'giu',
);

/** The query with a channel verb's request spelled out ("text +1 …" -> "send sms text +1 …"). */
function withChannelVerbsRead(query: string): string {
  return query.replace(
    CHANNEL_REQUEST,
    (_m, lead: string, verb: string) => `${lead}${CHANNEL_VERBS[verb.toLowerCase()]} ${verb} `,
  );
}

/**
 * The query as it is matched, encoded and judged (ranking step 0): without its quoted payloads, and with
 * a channel verb's request spelled out.
 */
export function queryAsRead(query: string): string {
  return withChannelVerbsRead(withoutQuotedText(query));
}
