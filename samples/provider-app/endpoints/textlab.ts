// Sample Text Lab (ai_ml): lexicon-based sentiment analysis and text statistics / readability.
import { price, type SampleEndpoint, type SampleProvider } from '../types.js';
import { SENTIMENT_LEXICON } from './lexicon.js';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const words = (text: string) => (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));

const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'none',
  'nobody',
  'nothing',
  'neither',
  'nor',
  'hardly',
  'barely',
  'without',
  "don't",
  "doesn't",
  "didn't",
  "isn't",
  "aren't",
  "wasn't",
  "weren't",
  "won't",
  "can't",
  'cannot',
  "couldn't",
  "shouldn't",
  "wouldn't",
  "haven't",
  "hasn't",
  "ain't",
]);
const INTENSIFIERS: Record<string, number> = {
  very: 1.5,
  really: 1.4,
  extremely: 1.8,
  so: 1.3,
  incredibly: 1.7,
  absolutely: 1.6,
  totally: 1.4,
  quite: 1.2,
  super: 1.5,
  highly: 1.4,
  slightly: 0.6,
  somewhat: 0.7,
  barely: 0.5,
};

/** Sum of lexicon scores with negation (flips within 3 words) and intensifiers, squashed into [-1, 1]. */
export function analyseSentiment(text: string) {
  const tokens = words(text);
  let sum = 0;
  const positive: string[] = [];
  const negative: string[] = [];
  tokens.forEach((token, i) => {
    const base = SENTIMENT_LEXICON[token];
    if (base === undefined) return;
    let score = base;
    const previous = tokens.slice(Math.max(0, i - 3), i);
    if (previous.some((w) => NEGATORS.has(w))) score = -score * 0.75;
    const booster = INTENSIFIERS[tokens[i - 1] ?? ''];
    if (booster) score *= booster;
    sum += score;
    (score > 0 ? positive : negative).push(token);
  });
  const exclamations = Math.min((text.match(/!/g) ?? []).length, 3);
  if (sum !== 0) sum += Math.sign(sum) * exclamations * 0.3;
  const score = sum / Math.sqrt(sum * sum + 15);
  const rounded = Math.round(score * 1000) / 1000;
  return {
    score: rounded,
    label: rounded >= 0.05 ? 'positive' : rounded <= -0.05 ? 'negative' : 'neutral',
    positive_words: positive,
    negative_words: negative,
    word_count: tokens.length,
  };
}

const sentiment: SampleEndpoint = {
  definition: {
    slug: 'sentiment',
    method: 'POST',
    description:
      'Sentiment analysis of English text: is a review, comment or message positive, negative or neutral? Returns a polarity score from -1 to 1 and the opinion words found, handling negation ("not good") and intensifiers ("very bad").',
    tags: ['sentiment', 'nlp', 'opinion', 'reviews', 'emotion', 'text-analysis'],
    parameters: {
      text: {
        type: 'string',
        required: true,
        description: 'English text to analyse',
        minLength: 1,
        maxLength: 50000,
      },
    },
    response_schema: {
      score: { type: 'number', description: 'Polarity from -1 (negative) to 1 (positive)' },
      label: { type: 'string', enum: ['positive', 'negative', 'neutral'] },
      positive_words: { type: 'array', items: { type: 'string' } },
      negative_words: { type: 'array', items: { type: 'string' } },
      word_count: { type: 'integer' },
    },
    pricing: price('0.003'),
  },
  handle: ({ text }) => analyseSentiment(String(text)),
};

/** Vowel-group syllable estimate, good enough for readability formulas. */
function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w.length <= 3) return 1;
  const groups = w
    .replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, '')
    .replace(/^y/, '')
    .match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups?.length ?? 1);
}

const STOPWORDS = new Set(
  'a an and are as at be but by for from has have he her his i in is it its of on or our she so that the their them they this to was we were what when which who will with you your not no do does did been being can could would should than then there these those into over such only also just about more most very'.split(
    ' ',
  ),
);

export function textStatistics(text: string) {
  const tokens = words(text);
  const sentences = Math.max(tokens.length ? 1 : 0, (text.match(/[.!?]+(?=\s|$)/g) ?? []).length);
  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim()).length;
  const syllableCount = tokens.reduce((n, w) => n + syllables(w), 0);
  const letters = tokens.reduce((n, w) => n + w.length, 0);
  const flesch =
    tokens.length && sentences
      ? 206.835 - 1.015 * (tokens.length / sentences) - 84.6 * (syllableCount / tokens.length)
      : 0;
  const counts = new Map<string, number>();
  for (const w of tokens) if (!STOPWORDS.has(w) && w.length > 2) counts.set(w, (counts.get(w) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10);
  return {
    characters: [...text].length,
    characters_no_spaces: [...text.replace(/\s/g, '')].length,
    words: tokens.length,
    unique_words: new Set(tokens).size,
    sentences,
    paragraphs,
    avg_word_length: tokens.length ? Math.round((letters / tokens.length) * 100) / 100 : 0,
    reading_time_seconds: Math.ceil((tokens.length / 238) * 60),
    flesch_reading_ease: Math.round(flesch * 10) / 10,
    top_words: top.map(([word, count]) => ({ word, count })),
  };
}

const stats: SampleEndpoint = {
  definition: {
    slug: 'text-stats',
    method: 'POST',
    description:
      'Text statistics and readability: word, sentence, character and paragraph counts, estimated reading time, Flesch reading-ease score and the most frequent keywords of a document.',
    tags: ['text', 'word-count', 'readability', 'keywords', 'nlp', 'text-analysis'],
    parameters: {
      text: { type: 'string', required: true, description: 'Text to measure', maxLength: 200000 },
    },
    response_schema: {
      characters: { type: 'integer' },
      characters_no_spaces: { type: 'integer' },
      words: { type: 'integer' },
      unique_words: { type: 'integer' },
      sentences: { type: 'integer' },
      paragraphs: { type: 'integer' },
      avg_word_length: { type: 'number' },
      reading_time_seconds: { type: 'integer' },
      flesch_reading_ease: { type: 'number', description: 'Higher is easier (60-70 = plain English)' },
      top_words: { type: 'array', items: { type: 'object' } },
    },
    pricing: price('0.002'),
  },
  handle: ({ text }) => textStatistics(String(text)),
};

export const textlab: SampleProvider = {
  definition: {
    provider_id: 'sample-textlab',
    name: 'Sample Text Lab',
    description: 'Offline natural-language processing: sentiment analysis, readability and text statistics.',
    category: 'ai_ml',
    tags: ['nlp', 'text', 'language', 'offline'],
  },
  endpoints: [sentiment, stats],
};
