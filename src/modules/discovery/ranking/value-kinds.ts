// Values in a query whose form says what they are — an IP address, an e-mail address, a URL, a domain, a
// 0x account, an ENS name, a transaction hash, a phone number, an amount of money or tokens, a calendar
// date, a latitude and longitude, a street address, a file of a kind (an image, a recording, a video, a
// document, by its name's ending), and a quoted text (as-read.ts) — and the endpoints whose parameters
// take such a value. The
// value itself is in no endpoint's text, so the words cannot use it; but "a card payment came from
// 45.133.1.22 — an anonymising service?" is asked of an endpoint that takes an IP address, "how much
// USDC for 2.5 ETH?" of one that takes an amount, "rain in Seattle on 4 November 2023" of one that takes
// a date (not the one for now), and "lat/lng for 10 Downing Street" of one that takes an address (not
// the reverse geocoder), whatever each calls it.
// The match moves the order of the hits a little (`valueKindOrder`), never their relevance: it says which
// of the matches can take what the caller holds, not how well the best one answers.
import type { OrderedHits } from './late-interaction.js';
import { isStopWord, splitName } from './text.js';
import type { IndexedEndpoint } from './types.js';

export type ValueKind =
  | 'ip'
  | 'email'
  | 'url'
  | 'domain'
  | 'account'
  | 'ens'
  | 'transaction'
  | FileKind
  | SpanningKind
  | 'text';
/** What a file is, by its name's ending: the one in a URL or a bare file name (receipt.jpg). */
type FileKind = 'image' | 'audio' | 'video' | 'document';
/** Kinds whose values span tokens ("+44 7700 900123", "2,500 Swiss francs"), read from the whole query. */
type SpanningKind = 'phone' | 'amount' | 'tokens' | 'date' | 'coordinates' | 'street';

/** What a file holds, by its name's ending (sixteenth round). */
const FILE_KINDS: Record<string, FileKind> = {};
for (const [kind, endings] of [
  ['image', 'jpg jpeg png gif webp bmp tif tiff heic'],
  ['audio', 'mp3 wav m4a ogg flac aac opus'],
  ['video', 'mp4 mov webm mkv avi'],
  ['document', 'pdf doc docx'],
] as const)
  for (const ending of endings.split(' ')) FILE_KINDS[ending] = kind;

/** File names look like domains (receipt.jpg, next.js); their endings are not top-level domains here. */
const FILE_ENDINGS = new Set([
  ...'svg csv json txt md xls xlsx ppt pptx html htm zip js ts py eth'.split(' '),
  ...Object.keys(FILE_KINDS),
]);

/** The kind of one whitespace-separated token of a query (punctuation around it is ignored). */
export function valueKindOf(token: string): ValueKind | undefined {
  const bare = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}/]+$/gu, '');
  if (/^(?:0x)?[0-9a-f]{64}$/i.test(bare)) return 'transaction';
  if (/^0x[0-9a-f]{40}$/i.test(bare)) return 'account';
  if (/^(?:\d{1,3}\.){3}\d{1,3}$/.test(bare)) return 'ip';
  if (/^[^\s@/]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u.test(bare)) return 'email';
  // An ENS name (vitalik.eth, payroll.acme.eth): a wallet's name, not a web domain (seventeenth round).
  if (/^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.eth$/iu.test(bare)) return 'ens';
  if (/^(?:https?:\/\/|www\.)\S+$|^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+\/\S*$/iu.test(bare)) return 'url';
  const host = /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(\p{L}{2,})$/u.exec(bare);
  if (host && !FILE_ENDINGS.has((host[1] as string).toLowerCase())) return 'domain';
  return undefined;
}

/**
 * The kind of file a token names by its ending — a URL's path (https://x.io/scan-0042.png?v=2) or a bare
 * file name (receipt.jpg) — so that "pull the text out of https://…/scan.png" is asked of an endpoint
 * that takes an image, not of one that takes any page's URL (sixteenth round).
 */
export function fileKindOf(token: string): FileKind | undefined {
  const path = token.replace(/[?#].*$/, '').replace(/[^\p{L}\p{N}]+$/u, '');
  const ending = /\.([a-z0-9]{2,4})$/i.exec(path);
  return ending ? FILE_KINDS[(ending[1] as string).toLowerCase()] : undefined;
}

/** A month's name or its abbreviation; "may" too ("may 2 users" would read as a date, rarely written). */
const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
/** Common token tickers: an amount of one is an amount of tokens (seventeenth round); step 0 reads a swap by them. */
export const TOKEN_CODES = 'btc|eth|usdc|usdt|weth|wbtc|dai|sol|matic|bnb|avax';
/** An amount of a token ("2.5 eth", "4,200 USDC"), the token's ticker captured: a value kind here, a swap's start in step 0. */
export const TOKEN_AMOUNT = new RegExp(`\\b\\d[\\d,.]*\\s?(${TOKEN_CODES})\\b`, 'i');
/** ISO codes of money (not tokens): step 0 reads an amount in one asked in another as a currency conversion. */
export const FIAT_CODES = 'usd|eur|gbp|jpy|chf|cad|aud|nzd|cny|hkd|sgd|inr|krw|brl|mxn|zar|sek|nok|dkk|pln';
const CURRENCY_CODES = `${FIAT_CODES}|${TOKEN_CODES}`;
/** Street types written after a street's name (not "way", "place", "square": "the best way", "5 square meters"). */
const STREET_TYPES =
  'street|st|road|rd|avenue|ave|boulevard|blvd|lane|ln|drive|dr|parkway|pkwy|highway|hwy|crescent';
/** Latin letters, accented ones included (a street's name: "Kaiserstraße", "Alcalá"). */
const LETTERS = 'a-zß-öø-ÿ';
const LETTER = `[${LETTERS}]`;
const CURRENCY_WORDS =
  'dollars?|euros?|pounds?|yen|francs?|rupees?|pesos?|reais|yuan|won|kronor|kroner|zloty';
/** A phone number, and an amount of money or tokens (a number before an ISO currency code, a common
 *  token ticker or a currency word, or after a currency sign); thirteenth round. A date; fourteenth.
 *  Coordinates and a street address; fifteenth. */
const SPANNING: Array<[SpanningKind, RegExp]> = [
  ['phone', /(?:^|[\s(:,])(?:\+\d[\d\s().-]{6,}\d|\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4})(?=$|[\s),.;:?!'"’])/u],
  [
    'amount',
    new RegExp(
      `[$€£¥₹]\\s?\\d|\\b\\d[\\d,.]*\\s?(?:${CURRENCY_CODES})\\b|\\b\\d[\\d,.]*\\s+(?:\\p{L}+\\s+)?(?:${CURRENCY_WORDS})\\b`,
      'iu',
    ),
  ],
  // An amount of a token ("2.5 eth", "4,200 USDC"; seventeenth round): also an amount, and asked of an
  // endpoint that takes an amount of tokens, not of money (a swap quote, not a currency converter).
  ['tokens', TOKEN_AMOUNT],
  // A calendar date (fourteenth round): 2024-03-01, 28.02.2023 or 3/14/24, 3 March or 14th of Nov, March 14
  // or Nov 10th, July 2019. A clock time alone ("6am", "9:00") is not one: it moved forecasts and
  // scheduled sends the wrong way more often than not. No `u` flag: with it the expression cost as much as
  // every other kind together.
  [
    'date',
    new RegExp(
      [
        '\\b\\d{4}-\\d{2}-\\d{2}\\b',
        '\\b\\d{1,2}[./]\\d{1,2}[./](?:\\d{4}|\\d{2})\\b',
        `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b`,
        `\\b${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\b(?![\\d:])`,
        `\\b${MONTH}\\s+\\d{4}\\b`,
      ].join('|'),
      'i',
    ),
  ],
  // A latitude and longitude pair in decimal degrees (fifteenth round): 40.748440,-73.985664 or
  // (52.37, 4.89); both with decimals, so that "1,250.00" and "3, 4" are not one.
  [
    'coordinates',
    /(?:^|[\s(:=@])[-+]?\d{1,2}\.\d{2,}\s*,\s*[-+]?\d{1,3}\.\d{2,}(?=$|[\s),;:?!'"’]|\.(?!\d))/,
  ],
  // A street address (fifteenth round): a house number before a street ("1600 Amphitheatre Pkwy", "10
  // Downing Street", "12 rue de Rivoli") or after one ("Hauptstrasse 5", "Calle Mayor 12"); the street's
  // name is words of letters within one sentence ("51.50135, -0.14189 at drop-off. Which street …" is
  // not one).
  [
    'street',
    new RegExp(
      [
        `\\b\\d{1,5}[a-z]?,?\\s+(?:${LETTER}[${LETTERS}'-]*\\s+){1,3}(?:${STREET_TYPES})\\b`,
        `\\b\\d{1,4}(?:bis|ter)?,?\\s+(?:rue|avenue|boulevard|bd|chemin|quai)\\s+${LETTER}`,
        `${LETTER}(?:strasse|straße|str\\.|weg|gasse|platz|allee|straat|laan|vej|gatan|gata|katu)\\s+\\d{1,4}[a-z]?\\b`,
        `\\b(?:calle|avenida|rua|via|viale|corso|piazza|carrer|paseo)\\s+(?:${LETTER}[${LETTERS}'-]*\\s+){1,4}\\d{1,4}\\b`,
      ].join('|'),
      // No `u` flag (Latin letters spelled out instead of \p{L}): with it, the expression cost as much
      // as every other kind together, as the date's did.
      'i',
    ),
  ],
];

/** The distinct kinds of the values in a query, in the order they first appear. */
export function valueKindsOf(query: string): ValueKind[] {
  const kinds = new Set<ValueKind>();
  for (const token of query.split(/\s+/)) {
    const kind = valueKindOf(token);
    if (kind) kinds.add(kind);
    const file = fileKindOf(token);
    if (file) kinds.add(file);
  }
  for (const [kind, form] of SPANNING) if (form.test(query)) kinds.add(kind);
  return [...kinds];
}

/**
 * Whether a quoted span is one value of a known kind rather than a payload to process: a single token of a
 * kind ('bob@acme.com', 'notion.so'), or a short span of one without a word of a sentence ('221B Baker
 * Street, London NW1 6XE', '+44 7700 900123', '3 March 2024'). "Hi, order #4471 ships on 3 May" is a
 * message that holds a date, not a date: read as payload (ranking step 0).
 */
export function isQuotedValue(span: string): boolean {
  const tokens = span.trim().split(/\s+/);
  if (tokens.length === 1) return valueKindsOf(span.trim()).length > 0;
  return (
    tokens.length <= QUOTED_VALUE_MAX_TOKENS &&
    !tokens.some((t) => isStopWord(t.toLowerCase().replace(/[^\p{L}']/gu, ''))) &&
    valueKindsOf(span.toLowerCase()).length > 0
  );
}
/** An address with its city, region and postcode is seldom longer ('1600 Amphitheatre Pkwy, Mountain View, CA 94043'). */
const QUOTED_VALUE_MAX_TOKENS = 9;

/** Words of a parameter's name and description that say it takes a value of a kind. */
const PARAMETER_WORDS: Record<ValueKind, string[]> = {
  ip: ['ip'],
  email: ['email', 'emails', 'e-mail'],
  url: ['url', 'urls', 'link', 'website'],
  domain: ['domain', 'hostname', 'host'],
  account: ['0x', 'wallet', 'contract'],
  ens: ['ens', '.eth'],
  transaction: ['tx', 'txid', 'hash', 'transaction'],
  image: [], // file kinds are read per parameter (takesFiles)
  audio: [],
  video: [],
  document: [],
  phone: ['phone', 'msisdn', 'mobile', 'e.164'],
  amount: ['amount', 'qty', 'quantity'],
  tokens: [], // an amount taken on a chain (acceptedKinds)
  date: ['date', 'dates', 'datetime', 'timestamp', 'time', 'since', '8601'],
  coordinates: ['lat', 'latitude', 'lon', 'lng', 'longitude', 'latlng', 'latlon', 'coordinates', 'coords'],
  street: [], // read per parameter (takesStreetAddress): "address" is also a wallet's, an e-mail's, an IP's
  // A text the caller holds in quotes (as-read.ts, seventeenth round): taken by a parameter for text.
  text: 'text texts message msg body content input sentence sentences prompt utterance passage passages paragraph query q keyword keywords phrase string'.split(
    ' ',
  ),
};

/**
 * Whether a parameter takes a street address: its name or description says street, address, addr or
 * postal, and nothing of an address of another kind (a wallet's, a contract's, an e-mail's, an IP's).
 */
function takesStreetAddress(name: string, description = ''): boolean {
  const text = `${splitName(name)} ${description}`.toLowerCase();
  return (
    /\b(?:street|address|addr|postal|postcode)\b/.test(text) &&
    !/\b(?:0x|wallet|contract|token|e-?mail|ip|ens|mac|btc|bitcoin|solana|evm|deposit|chain)\b/.test(text)
  );
}

/** Words that say what kind of file a parameter that takes a file or its link holds. */
const FILE_WORDS: Record<FileKind, RegExp> = {
  image: /\b(?:image|images|img|photo|photos|picture|pictures)\b/,
  audio: /\b(?:audio|recording|media)\b/,
  video: /\b(?:video|videos|media)\b/,
  document: /\b(?:pdf|document|documents|doc)\b/,
};

/** The kinds of file a parameter takes: one that takes a file or a link (url, file, link, uri, src) and says of what. */
function takesFiles(name: string, description = ''): FileKind[] {
  const text = `${splitName(name)} ${description}`.toLowerCase();
  if (!/\b(?:url|urls|file|files|link|uri|src)\b/.test(text)) return [];
  return (Object.keys(FILE_WORDS) as FileKind[]).filter((kind) => FILE_WORDS[kind].test(text));
}

const accepted = new WeakMap<IndexedEndpoint, ReadonlySet<ValueKind>>();

/** The kinds of value an endpoint's parameters take (memoised per endpoint object). */
export function acceptedKinds(e: IndexedEndpoint): ReadonlySet<ValueKind> {
  let kinds = accepted.get(e);
  if (!kinds) {
    const text = Object.entries(e.parameters)
      .map(([name, spec]) => `${splitName(name)} ${spec.description ?? ''}`)
      .join(' ')
      .toLowerCase()
      // A time zone is where a time is read, not a time.
      .replace(/time[\s-]?zones?/g, 'zone');
    const words = new Set(text.split(/[^a-z0-9-]+|_/));
    // A marker with a dot ("e.164") is looked for in the text, the others among its words.
    const says = (marker: string) => (marker.includes('.') ? text.includes(marker) : words.has(marker));
    const found = new Set<ValueKind>();
    for (const [kind, markers] of Object.entries(PARAMETER_WORDS) as [ValueKind, string[]][])
      if (markers.some(says)) found.add(kind);
    // A bare domain is also what a URL parameter takes (example.com is a page).
    if (found.has('url')) found.add('domain');
    // An amount is of tokens where the endpoint is on a chain or its parameters speak of tokens.
    if (
      found.has('amount') &&
      (e.category === 'blockchain' ||
        /\b(?:token|tokens|eth|wei|erc-?20|chain|swap|dex|crypto|coin)\b/.test(text))
    )
      found.add('tokens');
    for (const [name, spec] of Object.entries(e.parameters)) {
      if (takesStreetAddress(name, spec.description)) found.add('street');
      for (const kind of takesFiles(name, spec.description)) found.add(kind);
    }
    kinds = found;
    accepted.set(e, kinds);
  }
  return kinds;
}

/** Weight of the share of the query's value kinds an endpoint takes, added to its order score. */
export const VALUE_KIND_WEIGHT = 0.1;

/**
 * The order score of the hits (same positions): their order (late interaction's, else their relevance)
 * plus `weight` × the share of the query's value kinds the endpoint takes. Undefined when the query
 * holds no value of a known kind: the order is left as it was.
 */
export function valueKindOrder(
  hits: OrderedHits,
  kinds: ValueKind[],
  endpointAt: (slot: number) => IndexedEndpoint | undefined,
  weight = VALUE_KIND_WEIGHT,
): Float64Array | undefined {
  if (kinds.length === 0 || weight === 0) return undefined;
  const base = hits.order ?? hits.relevance;
  const order = Float64Array.from(base);
  const step = weight / kinds.length;
  for (let k = 0; k < order.length; k++) {
    const e = endpointAt(hits.slots[k] as number);
    if (!e) continue;
    const takes = acceptedKinds(e);
    for (const kind of kinds) if (takes.has(kind)) order[k] = (order[k] as number) + step;
  }
  return order;
}
