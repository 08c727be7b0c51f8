// Ranking step 0, the query as read: what of the query is the ask. A quoted span is a payload to process,
// not the capability asked for (its kind is read: a value's, or a text the caller holds), and so is the topic
// of the news asked for. A channel named as the verb ("text +44 …") asks to send, an amount of one token
// asked against another ("USDC for 2 ETH") asks for a swap, a flight number (LH400) is of a flight, an
// address held and coordinates named (or the reverse) ask for a geocoding, "5 miles in km" for a unit
// conversion, a text held and a language named ("'Wo ist der Bahnhof?' in English") for a translation,
// items sorted into listed classes ("tickets into billing / bug / refund") for a classification, a text
// asked to sound another way for a rewrite, a ticker asked its price for a stock quote, a value that says
// what it is (a VIN, an IBAN, 1Z…) for its kind's task, a short link for its expansion, a clock time asked
// elsewhere for a time zone conversion, a coin asked its price for a coin price, a 0x address asked
// what it holds for a wallet balance, a text asked back as JSON fields for an extraction, a text asked
// whether it is abusive for a moderation, an IPv4 address asked where it is for an IP geolocation, a
// text asked its people and companies for entity recognition, a picture described by its look for an
// image generation, and a coin asked its price on a date for a historical price: each is spelled out.
// What is left is matched, encoded and judged (docs/discovery.md, "Ranking").
// Quoted spans are read in quoted.ts, the tasks named by what is held in tasks-held.ts, and those asked of
// a text the query holds in tasks-of-a-text.ts.
import { quotedValueKinds, withoutQuotedText } from './quoted.js';
import { TASKS_NAMED_BY_WHAT_IS_HELD } from './tasks-held.js';
import { TOKEN_AMOUNT, TOKEN_CODES } from './value-kinds.js';

export { quotedValueKinds, withoutQuotedText };

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
 * Where a request's verb stands: first in a sentence (after "please" too), or after "please", "can you",
 * "could you", "would you", "I need to", "we want to", "help me" (a regular expression's source, for the
 * word after it). Read by the channel verbs here and by the action rule of the match quality.
 */
export const REQUEST_LEAD =
  "(?:^|[.!?;]\\s+)(?:please\\s+)?|\\b(?:please|(?:can|could|would) you(?: please)?|(?:i|we) (?:need|want|'d like|would like) to|help me)\\s+";

/**
 * The verb stands where a request's verb does (`REQUEST_LEAD`) and is followed by whom or what it goes to —
 * a value (`+44…`, `(415)…`, `bob@…`) or a determiner or pronoun ("all 80 members", "a customer", "him") —
 * so "text to speech", "email deliverability" and "sms otp" keep their nouns.
 */
const CHANNEL_REQUEST = new RegExp(
  `(${REQUEST_LEAD})(${Object.keys(CHANNEL_VERBS).join('|')})\\s+` +
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
 * The topic of news asked for ("latest news on the ECB interest rate decision", "any articles this week
 * about Figma's pricing", "press coverage of the Northvolt bankruptcy"): what the articles are about, not
 * the capability asked for — a payload, as a quoted span is. It runs from "on", "about", "regarding",
 * "concerning", "mentioning" or "of" right after the news word (news, headlines, coverage, stories,
 * articles, press; or after a time: "news in the last 24h about …") to a time ("published in March 2023",
 * "from the past week", "between …", "since …") or the end of the sentence or clause (twenty-third round:
 * articles, press, of, mentioning and the time that ends the topic).
 */
const NEWS_TOPIC =
  /\b(news|headlines|coverage|stories|articles|press)((?:\s+(?:this|last|past|today|week|month|year|lately|recently|in|from|over|the|\d+\s?h|\d+|hours?|days?|weeks?|months?))*)\s+(?:on|about|regarding|concerning|mentioning|of)\s+(?:(?!\s-\s|\s(?:published|between|since|from|during|over|in\s+(?:the\s+)?(?:last|past))\b)[^.?!;:,—–])+/giu;

/** The query with a news topic left out ("latest news on the ECB rate decision" -> "latest news"). */
function withNewsTopicLeftOut(query: string): string {
  const asked = query.replace(NEWS_TOPIC, '$1$2').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(asked) ? asked : query;
}

/**
 * An amount of one token asked against another ("how much USDC would I get for 2 ETH", "sell 1.5 WETH
 * for USDC", "5 SOL to USDC"): a swap, a word such a query seldom writes (eighteenth round). Both are
 * common tokens' tickers (`TOKEN_CODES`) standing as words (not "kestrel-dao.eth"), the other not an
 * amount too ("0.35 BTC and 4 ETH") nor a chain ("ETH mainnet"), and the query does not send, pay or
 * bridge.
 */
const TOKEN_WORD = new RegExp(`(?<![\\w.-])(${TOKEN_CODES})(?![\\w-]|\\.\\w)`, 'gi');

/** The query with a swap spelled out where it asks for one token against another ("… for 2 ETH" -> "… for 2 ETH swap"). */
function withSwapRead(query: string): string {
  const amount = TOKEN_AMOUNT.exec(query);
  if (
    !amount ||
    /\b(?:swaps?|swapping|swapped|send|sending|transfer|pay|paying|bridge|bridging)\b/i.test(query)
  )
    return query;
  const held = (amount[1] as string).toLowerCase();
  // The other token is asked for, not held ("0.35 BTC and 4 ETH"), nor a chain ("ETH mainnet").
  const other = [...query.matchAll(TOKEN_WORD)].some(
    (m) =>
      (m[1] as string).toLowerCase() !== held &&
      !/\d[\d,.]*\s?$/.test(query.slice(0, m.index)) &&
      !/^\s+(?:mainnet|chain|network|l1|l2)\b/i.test(
        query.slice((m.index as number) + (m[0] as string).length),
      ),
  );
  return other ? query.replace(TOKEN_AMOUNT, '$& swap') : query;
}

/**
 * A flight number (LH400, BA117, UA901, KL1002): an airline's two-letter code in capitals and two to four
 * digits, as a token of its own (eighteenth round). Not one: a fiscal year (FY2024), a UN or HS number,
 * PM2.5, a chemical formula (CO2), a postcode's district (SW19 5AE), an IBAN's start (DE89 3704 …), a
 * size (GB64), BM25 or a serial number (SN 7731).
 */
const FLIGHT_NUMBER =
  /(?<![\p{L}\p{N}])(?!(?:FY|UN|HS|PM|CO|NO|SO|ID|SN|GB|MB|KB|TB|EU|BM|NW|SW|SE|NE|EC|WC|LS|CV|OP)\d)[A-Z]{2}\d{2,4}(?![\p{L}\p{N}]|[.,]\d|\s\d)/u;

/**
 * The query with what a flight number says spelled out: "is LH400 delayed today?" asks about a flight,
 * a word it does not write ("is LH400 delayed today?" -> "is LH400 flight delayed today?").
 */
function withFlightNumberRead(query: string): string {
  if (/\bflights?\b/i.test(query)) return query;
  const read = query.replace(FLIGHT_NUMBER, '$& flight');
  if (read !== query || !FLIGHT_ASKED.test(query)) return read;
  return query.replace(SPACED_FLIGHT_NUMBER, '$& flight');
}

/**
 * A flight number written with a space ("UA 857", "LH 902"), read only where the query asks what a flight
 * is asked (twenty-sixth round): two capitals and a number stand for many other things ("US 2024", "CA
 * 94105").
 */
const SPACED_FLIGHT_NUMBER =
  /(?<![\p{L}\p{N}])(?!(?:FY|UN|HS|PM|CO|NO|SO|ID|SN|GB|MB|KB|TB|EU|BM|NW|SW|SE|NE|EC|WC|LS|CV|OP|US|UK)\s)[A-Z]{2}\s\d{2,4}(?![\p{L}\p{N}]|[.,]\d|\s\d)/u;
/** What is asked of a flight: on time, delayed, landed, departed, arrived, its gate, boarding, cancelled. */
const FLIGHT_ASKED =
  /\b(?:on\s+time|delay\w*|land\w*|depart\w*|arriv\w*|gate|boarding|take\s+off|took\s+off|cancel+ed)\b/i;

/**
 * What step 0 spells out, in this order: each reading is given the query as read so far and as written
 * (a reading that looks at quoted text or at values reads the query as written).
 */
const SPELLED_OUT: ReadonlyArray<(asked: string, written: string) => string> = [
  withChannelVerbsRead,
  withSwapRead,
  withFlightNumberRead,
  ...TASKS_NAMED_BY_WHAT_IS_HELD,
];

/**
 * The query as it is matched, encoded and judged (ranking step 0): without its quoted payloads and its
 * news topic, with a channel verb's request, a swap, a flight number, a geocoding, a unit conversion, a
 * translation, a classification, a rewrite, a stock quote, a value's kind, a link's expansion, a time zone
 * conversion, a coin price, a wallet balance, an extraction, a moderation, an IP geolocation, an entity
 * recognition, an image generation, a historical coin price, a summary, a code generation, a currency
 * conversion, a bulk e-mail verification, a PII redaction, an e-mail verification, a web search, a
 * transaction status, an uptime check, the current weather, an image caption, a phone call, an ENS
 * resolution, a JWT decoding, an object count, a nearby place search, a route, text embeddings, a Bitcoin
 * balance, a token price by contract, an SMS send, a visual question, a batch geocoding and an e-mail with
 * an attachment spelled out.
 */
export function queryAsRead(query: string): string {
  const asked = withNewsTopicLeftOut(withoutQuotedText(query));
  return SPELLED_OUT.reduce((read, spellOut) => spellOut(read, query), asked);
}
