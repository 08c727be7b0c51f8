// Ranking step 0's readings of a task the query names only by what it holds and what it wants (nineteenth
// to twenty-second rounds): an address held and coordinates named (or the reverse) ask for a geocoding,
// "5 miles in km" for a unit conversion, a text held and a language named for a translation, items sorted
// into listed classes for a classification, a text asked to sound another way for a rewrite, a ticker asked
// its price for a stock quote, a value that says what it is (a VIN, an IBAN, 1Z…) for its kind's task, a
// short link for its expansion, a clock time asked elsewhere for a time zone conversion, a coin asked its
// price for a coin price, a 0x address asked what it holds for a wallet balance, and (twenty-third round) a
// text asked back as JSON fields for an extraction, a text asked whether it is abusive for a moderation, an
// IPv4 address asked where it is for an IP geolocation, a text asked its people and companies for entity
// recognition, a picture described by its look for an image generation, and a coin asked its price on a
// date for a historical coin price, and (twenty-fourth round) an amount of money asked in another currency
// for a currency conversion, and (twenty-sixth round) a transaction hash asked whether it went through for
// a transaction status and a site asked whether it is down for an uptime check, and (twenty-ninth round)
// an ENS name asked its address for an ENS resolution, an address asked as coordinates with neither held
// for a geocoding, and a JWT held without the word for its decoding, and (thirtieth round) a Bitcoin
// address asked its coins for its balance, a 0x contract asked its price for a token price by contract,
// and many addresses held in a file with coordinates named for a batch geocoding. Each appends the task's
// words; as-read.ts runs them after its own readings. Those asked of a text are in tasks-of-a-text.ts,
// those asked in the query's own words (a summary, code, a mailing list cleaned, personal data taken out,
// an address checked, a search engine's results, the weather now, alt text, a call to say something,
// txt2img, a count of what an image shows, a place open now nearby, a drive's duration, texts as vectors,
// a text message asked by how it goes, a chart held as a picture and asked about, a file to e-mail) in
// tasks-asked.ts; the
// list here runs them all, in the order they were written.
import { quotedValueKinds } from './quoted.js';
import {
  withAddressVerificationRead,
  withAltTextRead,
  withChartQuestionRead,
  withCodeGenerationRead,
  withDriveTimeRead,
  withListCleaningRead,
  withMailWithFileRead,
  withObjectCountRead,
  withOpenNearbyRead,
  withPersonalDataRedactionRead,
  withPhoneCallRead,
  withSummaryRead,
  withTextEmbeddingRead,
  withTextMessageRead,
  withTextToImageShortFormRead,
  withWeatherNowRead,
  withWebSearchRead,
} from './tasks-asked.js';
import {
  withClassificationRead,
  withEntityExtractionRead,
  withJsonExtractionRead,
  withModerationRead,
  withRewriteRead,
  withTranslationRead,
} from './tasks-of-a-text.js';
import { contentWords } from './text.js';
import { FIAT_CODES, TOKEN_CODES, valueKindsOf } from './value-kinds.js';

/** Words that name a latitude and longitude ("lat/long", "lat lng", "GPS coordinates", "coords"). */
const COORDINATES_NAMED =
  /\b(?:lat(?:itude)?\s*[/,&]?\s*(?:long(?:itude)?|lng|lon)|lat|lng|latitude|longitude|coords?|coordinates|gps)\b/i;
/** A street address named ("street address", "adress"), not an e-mail's, an IP's, a wallet's or a contract's. */
const STREET_ADDRESS_NAMED =
  /(?<!\b(?:e-?mail|ip|wallet|0x|contract|mac|ens|deposit|billing)\s+)\b(?:street\s+)?add?ress\b/i;

/**
 * An address asked as coordinates, named in that order: "turn street address into lat long", "adress to
 * coordinates", "40 addresses in a spreadsheet. Turn all of them into lat/long" (the reverse names the
 * coordinates first).
 */
const ADDRESS_INTO_COORDINATES =
  /\badd?ress(?:es)?\b[^?!]{0,60}?\b(?:into|to|as)\s+(?:(?:their|its|a|the)\s+)?(?:lat(?:itude)?|coords?|coordinates|gps)\b/i;

/** Many addresses: "800 customer addresses", "a spreadsheet of addresses", "addresses in a CSV". */
const MANY_ADDRESSES =
  /\b\d[\d,.]*k?\s+(?:[\p{L}-]+\s+){0,2}add?ress(?:es)?\b|\b(?:spreadsheet|csv|sheet|list|file)\s+(?:of|with)\s+(?:[~\p{N},.]+\s+)?(?:[\p{L}-]+\s+){0,2}add?ress(?:es)?\b|\badd?ress(?:es)\b[^.?!]{0,30}?\b(?:in|from)\s+(?:a|an|the|our|my)?\s*(?:spreadsheet|csv|sheet|file)\b/iu;

/**
 * The query with a geocoding spelled out where it holds one kind of place and names the other (nineteenth
 * round): a street address held and a latitude and longitude named ("lat/long for 1600 Amphitheatre Pkwy")
 * asks to geocode it, coordinates held and a street address named ("what street address is at 48.8584,
 * 2.2945?") to reverse geocode them. Both kinds are read from the query as written, the quoted address too;
 * a kind named without the other held ("give me box coords") is not read.
 */
function withGeocodingRead(asked: string, written: string): string {
  const namesCoordinates = COORDINATES_NAMED.test(written);
  const namesStreet = STREET_ADDRESS_NAMED.test(written);
  // The kinds held are read only where a kind is named: most queries name none.
  if ((!namesCoordinates && !namesStreet) || /\bgeocod/i.test(written)) return asked;
  const held = new Set([...valueKindsOf(written.toLowerCase()), ...quotedValueKinds(written)]);
  if (namesCoordinates && held.has('street') && !held.has('coordinates')) return `${asked} geocode`;
  if (namesStreet && held.has('coordinates') && !held.has('street'))
    return /\breverse\b/i.test(written) ? `${asked} geocode` : `${asked} reverse geocode`;
  // Neither held: the address asked turned into coordinates, in that order (twenty-ninth round).
  if (!held.has('coordinates') && ADDRESS_INTO_COORDINATES.test(written)) return `${asked} geocode`;
  // Many addresses held in a file and coordinates named for each (thirtieth round).
  if (namesCoordinates && !held.has('coordinates') && MANY_ADDRESSES.test(written))
    return `${asked} batch geocode`;
  return asked;
}

/** Units of measure as a query writes them (not currencies: an amount of money is converted by rates). */
const UNIT =
  '(?:km|kms|kilomet(?:er|re)s?|miles?|mi|met(?:er|re)s?|cm|mm|inch(?:es)?|in|feet|ft|foot|yards?|yd|lbs?|' +
  'pounds?|kg|kgs|kilograms?|grams?|g|oz|ounces?|celsius|fahrenheit|farenheit|°\\s?[cf]|[cf]|kelvin|lit(?:er|re)s?|' +
  'l|ml|gallons?|gal|mph|kph|km/h|knots?|psi|kwh|joules?|kcal|calories|acres?|hectares?|stones?|cups?|' +
  'tbsp|tsp|pints?|quarts?)';
/** An amount in one unit asked in another ("5 miles in km", "72 °F to C", "3 cups flour in grams"). */
const UNIT_CONVERSION = new RegExp(
  `(?<![\\p{L}\\p{N}.,])\\d[\\d,.]*(?:/\\d+)?\\s?${UNIT}(?![\\p{L}\\p{N}])(?:\\s+(?:of\\s+)?\\p{L}+)?\\s+(?:in|to|into)\\s+°?${UNIT}(?![\\p{L}\\p{N}/])`,
  'iu',
);

/**
 * The query with a unit conversion spelled out (nineteenth round): "72 fahrenheit in celsius" asks to
 * convert units, words it does not write, and its units' words match weather and distance endpoints.
 */
function withUnitConversionRead(query: string): string {
  if (/\bconver/i.test(query)) return query;
  return UNIT_CONVERSION.test(query) ? `${query} convert units` : query;
}

/**
 * Currencies of money by name (not tokens: an amount of tokens asked in another is a swap, read in
 * as-read.ts); the value kinds' currency words without "won", an English word after "in" or "to".
 */
const FIAT_WORDS = 'dollars?|euros?|pounds?|yen|francs?|rupees?|pesos?|reais|yuan|kronor|kroner|zloty|złoty';
/**
 * An amount of money asked in another currency: "250 EUR in JPY", "2,500 CHF in yen at todays rate?",
 * "$1,200 to GBP", "2,450 CAD. How much is that in euros today?" (the currency asked at most 60
 * characters after the amount, which bounds the search on a long query).
 */
const MONEY_IN_ANOTHER_CURRENCY = new RegExp(
  `(?:[$€£¥₹]\\s?\\d|\\b\\d[\\d,.]*\\s?(?:${FIAT_CODES})\\b)[^?!]{0,60}?\\b(?:in|to|into)\\s+(?:${FIAT_CODES}|${FIAT_WORDS})\\b`,
  'iu',
);

/**
 * The query with a currency conversion spelled out where it holds an amount of money and asks it in another
 * currency (twenty-fourth round): "250 EUR in JPY" writes neither convert nor exchange rate, and its words
 * are only the currencies'. Not where it already says convert or exchange.
 */
function withCurrencyConversionRead(asked: string, written: string): string {
  if (/\b(?:conver|exchang|forex|fx)/i.test(written)) return asked;
  return MONEY_IN_ANOTHER_CURRENCY.test(written) ? `${asked} currency conversion exchange rate` : asked;
}

/** A transaction hash held: 0x and 64 hex digits. */
const TRANSACTION_HASH = /\b0x[0-9a-f]{64}\b/i;
/** A transaction asked whether it went through: gone / went through, landed, confirmed, succeeded, failed, pending, stuck. */
const WENT_THROUGH_ASKED =
  /\b(?:gone|go|went|going)\s+through\b|\b(?:land(?:ed)?|confirm(?:ed)?|succe(?:ed|eded)|fail(?:ed)?|pending|stuck|mined|clear(?:ed)?|settled|revert(?:ed)?)\b/i;

/**
 * The query with a transaction status spelled out where it holds a transaction hash and asks whether it
 * went through, without naming a transaction ("Customer swears they paid. Has 0x5c50… gone through?"):
 * its words (paid, customer) match invoicing and payments before a chain's transaction lookup
 * (twenty-sixth round). Not where it says tx, transaction, hash, receipt or decode.
 */
function withTransactionStatusRead(asked: string, written: string): string {
  if (!TRANSACTION_HASH.test(written) || !WENT_THROUGH_ASKED.test(written)) return asked;
  if (/\b(?:tx|txn|txid|transactions?|hash|receipt|decode)\b/i.test(written)) return asked;
  return `${asked} transaction status`;
}

/**
 * A site held or named: a URL, a domain (from a token's start, its parts bounded, so that a long token costs
 * no more than a short one), "my site", "the shop site", "our app", "the API".
 */
const SITE =
  '(?:https?://\\S+|(?<![\\w.-])[\\w-]{1,63}(?:\\.[\\w-]{1,63}){0,4}\\.[a-z][a-z0-9-]{0,62}(?![\\w-])|(?:my|our|the|this|your)\\s+(?:shop\\s+|web\\s*)?(?:site|website|webpage|page|app|api|server|shop|store))';
/**
 * A site asked whether it is down or up: "is mysite.com down", "is my site https://… down or just me",
 * "my website is down", "is it down?" (at most 40 characters between the site and the word, which bounds
 * the search on a long query).
 */
const SITE_DOWN_ASKED = new RegExp(
  `\\b(?:is|are)\\s+${SITE}[^?!]{0,40}?\\s(?:down|up)\\b|${SITE}\\s+(?:is|are)\\s+(?:\\w+\\s+)?(?:down|up)\\b|\\bis\\s+it\\s+down\\b`,
  'i',
);

/**
 * The query with an uptime check spelled out where it asks whether a site is down ("is mysite.com down or
 * is it just me", "site not loading for me, is it down?"): only the site is named, and its words match
 * whatever the site is about (twenty-sixth round). Not a price up or down, a domain up for renewal, an
 * outage to page someone about, or where the query says uptime, status page or ping.
 */
function withSiteDownRead(asked: string, written: string): string {
  // Every form asks "down" or "up": most queries say neither, and this test costs less than the pattern.
  if (!/\b(?:down|up)\b/i.test(written) || !SITE_DOWN_ASKED.test(written)) return asked;
  if (
    /\b(?:uptime|status\s+page|ping|renewal|price|trading|stocks?|shares?|market|on-?call|whoever|escalat\w*|wake)\b/i.test(
      written,
    )
  )
    return asked;
  return `${asked} website uptime check`;
}

/** Coins and tokens a query names by their ticker, besides `TOKEN_CODES`: their price is not a stock's. */
const COIN_TICKERS = new Set(
  `${TOKEN_CODES}|doge|shib|pepe|xrp|ada|dot|link|ltc|trx|ton|near|apt|sui|uni|aave|mkr|arb|op|atom|xlm|bch|etc|fil|icp|inj|jup|wif|bonk|gas|gwei|sats`.split(
    '|',
  ),
);
/**
 * A ticker asked its price and nothing else: "AAPL price now", "NVDA last price rn", "$TSLA quote",
 * "tsla share price": the symbol (one to five letters, `BRK.B`), words of a share or a price, and words of
 * the time.
 */
const TICKER_PRICE =
  /^\W*(?:(?:what(?:'|’| i)?s|whats|get|show|check)\s+(?:the\s+)?)?\$?([A-Za-z]{1,5}(?:\.[A-Za-z])?)((?:\s+(?:stock|share|shares|equity|last|live|current|latest|spot))*)\s+(?:price|px|quote|trading\s+at|bid\s*\/\s*ask)[\s?.!,]*(?:(?:right\s+)?now|rn|today|pls|please|atm|currently|live)?[\s?.!]*$/iu;

/**
 * The query with a stock quote spelled out where it asks a ticker's price and nothing else (twenty-first
 * round): the price words are a coin's price endpoint's as much as a stock quote's, and the ticker is in
 * neither's text, so "AAPL last price" was answered by crypto prices. The symbol is read as a stock's when
 * it is in capitals or the query says stock or share, and it is not a coin's (`COIN_TICKERS`). A ticker
 * with another need ("insider sales of TSLA", "NVDA options chain") is not read: the seventeenth round's
 * broader rule gave those to the quote.
 */
function withStockQuoteRead(asked: string, written: string): string {
  const m = TICKER_PRICE.exec(written);
  if (!m) return asked;
  const symbol = m[1] as string;
  const saysShare = /\b(?:stock|shares?|equity)\b/i.test(m[2] as string);
  if (COIN_TICKERS.has(symbol.toLowerCase().replace(/\..*/, ''))) return asked;
  if (!saysShare && (symbol !== symbol.toUpperCase() || symbol.length < 2)) return asked;
  return `${asked} stock quote`;
}

/** IBAN: the mod-97 check of ISO 13616 (the country and check digits moved to the end, letters as 10–35). */
function isIban(value: string): boolean {
  const moved = value.slice(4) + value.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of code) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1;
}
/** A GTIN's check digit (EAN-8, UPC-A, EAN-13): weights 3 and 1 from the right, the sum a multiple of ten. */
function hasGtinCheckDigit(value: string): boolean {
  let sum = 0;
  for (let i = value.length - 1, weight = 1; i >= 0; i--, weight = 4 - weight)
    sum += Number(value[i]) * weight;
  return sum % 10 === 0;
}

/**
 * Values whose form alone says what they are, the words that name their kind, and what such a value asks
 * for when the query says little else: a vehicle identification number (seventeen letters and digits, no
 * I, O or Q, ending in digits), a UPS tracking number (1Z…), an IBAN (its check digits valid, grouped by
 * four or not), a barcode (EAN-8, UPC-A, EAN-13, its check digit valid), a cron line (five fields).
 */
const SELF_NAMED_VALUES: ReadonlyArray<{
  form: RegExp;
  valid?: (value: string) => boolean;
  named: RegExp;
  asks: string;
}> = [
  {
    form: /(?<![\p{L}\p{N}])(?=[A-HJ-NPR-Z0-9]*[A-Z])[A-HJ-NPR-Z0-9]{13}\d{4}(?![\p{L}\p{N}])/iu,
    named: /\b(?:vin|vehicle|car)\b/i,
    asks: 'vin decode vehicle',
  },
  {
    form: /(?<![\p{L}\p{N}])1Z[0-9A-Z]{16}(?![\p{L}\p{N}])/iu,
    named: /\b(?:ups|track\w*)\b/i,
    asks: 'ups track package',
  },
  {
    form: /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?(?![\p{L}\p{N}])/u,
    valid: (value) => isIban(value.replace(/\s/g, '')),
    named: /\biban\b/i,
    asks: 'iban',
  },
  {
    form: /(?<![\p{L}\p{N}.,+-])(?:\d{8}|\d{12,13})(?![\p{L}\p{N}]|[.,]\d)/u,
    valid: hasGtinCheckDigit,
    named: /\b(?:ean\w*|upc|gtin|isbn|barcode)\b/i,
    asks: 'barcode product ean',
  },
  {
    form: /(?<![^\s])(?:[\d*][\d*/,-]*\s+){4}[\d*][\d*/,-]*(?![^\s?.!])/u,
    valid: (value) => value.includes('*'),
    named: /\bcron/i,
    asks: 'cron expression schedule',
  },
];
/** At most this many words beside the value: more, and they say what is asked of it. */
const SELF_NAMED_MAX_WORDS = 3;

/**
 * The query with a value's kind spelled out where the value says what it is and the query says little
 * else: "1HGCM82633A004352" asks to decode a VIN, "wheres my parcel 1Z999AA10123456784" to track a UPS
 * parcel, "30 2 * * 0 next 5 runs" of a cron expression; their words match nothing, or the wrong
 * thing (twenty-second round). Not where the query names the kind, nor where it says more than a few
 * words beside the value: those words say what is asked of it.
 */
function withSelfNamedValueRead(asked: string, written: string): string {
  for (const { form, valid, named, asks } of SELF_NAMED_VALUES) {
    const m = form.exec(written);
    if (!m || (valid && !valid(m[0])) || named.test(written)) continue;
    const beside = contentWords(written.replace(m[0], ' '));
    if (beside.length <= SELF_NAMED_MAX_WORDS) return `${asked} ${asks}`;
  }
  return asked;
}

/** A link on a shortener's host (bit.ly/3xYz, https://t.co/…): a redirect to a page the link does not show. */
const SHORT_LINK =
  /(?<![\p{L}\p{N}.-])(?:https?:\/\/)?(?:bit\.ly|t\.co|tinyurl\.com|goo\.gl|ow\.ly|is\.gd|buff\.ly|rebrand\.ly|cutt\.ly|shorturl\.at|tiny\.cc|rb\.gy|lnkd\.in|t\.ly)\/[\p{L}\p{N}]/iu;

/**
 * The query with a link's expansion spelled out where it holds a short link ("where does bit.ly/3xYz
 * actually lead?"): its words (lead, go, click) match nothing of a link expander, and a page's URL
 * matches scrapers and screenshots (twenty-second round). Not where the query shortens a link, expands
 * it in those words, or asks how many clicks it had.
 */
function withShortLinkRead(asked: string, written: string): string {
  if (
    !SHORT_LINK.test(written) ||
    /\b(?:shorten|unshorten\w*|expand\w*|how many clicks|analytics|stats)\b/i.test(written)
  )
    return asked;
  return `${asked} expand short url redirect`;
}

/** A clock time: 3pm, 9:30am, 10:00, 9 a.m. */
const CLOCK_TIME =
  /(?<![\p{L}\p{N}:.])(?:\d{1,2}(?::[0-5]\d)?\s?(?:am|pm|a\.m\.|p\.m\.)|(?:[01]?\d|2[0-3]):[0-5]\d)(?![\p{L}\p{N}])/iu;
/**
 * A time asked elsewhere: "what time is it in Tokyo", "what time is that for me", "is what time in", "what's
 * that in India", "= ? tokyo"; not "what time does the 3pm train arrive".
 */
const TIME_ASKED_ELSEWHERE =
  /\bwhat\s+time\s+(?:is\s+(?:(?:it|that|this)\b|\d)|in\b)|\bis\s+what\s+time\b|\bwhat(?:'|’| i)?s\s+that\s+(?:in|for)\b|=\s*(?:\?|what)/iu;

/**
 * The query with a time zone conversion spelled out where it holds a clock time and asks what time that
 * is elsewhere ("3pm in New York is what time in Tokyo?"): its words are places and times, which match
 * the current time in a zone and scheduling before a conversion (twenty-second round). Not where it
 * already says convert or time zone.
 */
function withTimeZoneConversionRead(asked: string, written: string): string {
  if (!TIME_ASKED_ELSEWHERE.test(written) || /\b(?:conver\w*|time\s?zones?)\b/i.test(written)) return asked;
  return CLOCK_TIME.test(written) ? `${asked} time zone convert` : asked;
}

/** Coins by name, and by their tickers (`COIN_TICKERS`) but for gas, gwei and sats, which are not coins. */
const COINS = new Set([
  ...'bitcoin|ethereum|ether|solana|dogecoin|cardano|polkadot|litecoin|tron|ripple|chainlink|avalanche|polygon'.split(
    '|',
  ),
  ...[...COIN_TICKERS].filter((ticker) => !['gas', 'gwei', 'sats'].includes(ticker)),
]);
/** Words a coin's price is asked in besides the coins: the price, the currency it is wanted in, the time. */
const COIN_PRICE_WORDS = new Set(
  "price|prices|px|spot|quote|rate|value|worth|in|of|and|the|what|whats|what's|is|are|current|currently|live|latest|last|now|rn|today|right|pls|please|usd|eur|gbp|jpy|inr|chf|cad|aud|dollars|dollar|euro|euros|rupees|pounds|us".split(
    '|',
  ),
);
const COIN_PRICE_ASKED = /\b(?:price|prices|px|spot|quote|worth)\b/i;

/**
 * The query with a coin's price spelled out where it asks one or a few coins' price and nothing else
 * ("eth price usd", "SOL price in EUR", "BTC ETH SOL spot px in usd"): "price" is the gas price's word as
 * much as a coin's, and the ticker (SOL) the chain's balances' too, so gas and balance endpoints came
 * before a price by symbol (twenty-second round). Every word is a coin, a price, a currency or a time;
 * a query with another word (gas, fee, balance, a date, a contract) is not read.
 */
function withCoinPriceRead(asked: string, written: string): string {
  if (!COIN_PRICE_ASKED.test(written)) return asked;
  const tokens = written
    .toLowerCase()
    .split(/[^\p{L}\p{N}'$]+/u)
    .filter(Boolean);
  if (tokens.length > 10) return asked;
  let coins = 0;
  for (const token of tokens) {
    const bare = token.replace(/^\$/, '');
    if (COINS.has(bare)) coins++;
    else if (!COIN_PRICE_WORDS.has(bare)) return asked;
  }
  return coins > 0 ? `${asked} crypto coin price` : asked;
}

/** A coin's price asked at a time past: "worth", "price", "trading at", "cost", a closing price. */
const PAST_PRICE_ASKED = /\b(?:worth|price[ds]?|priced|trading\s+at|trade\s+at|cost|closing|close|px)\b/i;

/**
 * The query with a historical coin price spelled out where it names a coin, asks its price and holds a
 * calendar date ("what was bitcoin worth on 10 nov 2021", "ETH closing price in USD on 2021-11-10"): the
 * live price and the coin's other data come first, and the date is in no endpoint's text (twenty-third
 * round, after its judges). Not where the query asks a range or a chart (candles, OHLC, history).
 */
function withPastCoinPriceRead(asked: string, written: string): string {
  if (
    !PAST_PRICE_ASKED.test(written) ||
    /\b(?:candles?|ohlcv?|history|historical|chart|range|between)\b/i.test(written)
  )
    return asked;
  const words = written.toLowerCase().split(/[^\p{L}\p{N}$]+/u);
  if (!words.some((word) => COINS.has(word.replace(/^\$/, '')))) return asked;
  return valueKindsOf(written).includes('date') ? `${asked} historical crypto price on date` : asked;
}

/** What an account holds asked: "how much ETH does 0x… hold", "ETH balance of 0x…", "what tokens are in 0x…". */
const HOLDINGS_ASKED =
  /\b(?:hold|holds|holding|holdings|held|balances?|bal|sitting\s+in|(?:is|are)\s+in|erc-?20s?|portfolio|net\s+worth)\b/iu;
/** Other asks of an address, whose endpoints take it too: NFTs, transactions, DeFi positions, a send, a deploy, a price. */
const NOT_HOLDINGS =
  /\b(?:nfts?|floor|collection|txs?|transactions?|transfers?|send|pay|deploy|mint\w*|wallet|abi|source|upgradeable|proxy|approvals?|aave|liquidat\w*|health|borrow\w*|loans?|positions?|stak\w*|price|prices|px)\b/i;

/**
 * The query with a wallet's balance spelled out where it holds a 0x address and asks what the address
 * holds ("how much ETH does 0x… hold", "eth bal 0x…", "what erc20s does 0x… hold on Base"; twenty-second
 * round): words it seldom writes, while "ETH" and "tokens" match the gas price, the coin's price and
 * token data first. Not where the query asks the address for anything else (`NOT_HOLDINGS`) or already
 * says wallet.
 */
function withAddressHoldingsRead(asked: string, written: string): string {
  // The address is read as the value kinds read it (an `account`), only where holdings are asked.
  if (!HOLDINGS_ASKED.test(written) || NOT_HOLDINGS.test(written)) return asked;
  return valueKindsOf(written).includes('account') ? `${asked} wallet balance` : asked;
}

/**
 * The query with an IP geolocation spelled out where it holds an IPv4 address and asks where it is
 * ("where is 8.8.8.8", "which country and city is 8.8.4.4"): without the word IP, "where is" matches
 * nothing and "located" a place search (twenty-third round). Not where the query says IP.
 */
function withIpLocationRead(asked: string, written: string): string {
  if (!/\b(?:where\w*|located|location|country|city|geolocat\w*)\b/i.test(written) || /\bip\b/i.test(written))
    return asked;
  // The address is read as the value kinds read it (an `ip`), only where its place is asked.
  return valueKindsOf(written).includes('ip') ? `${asked} ip geolocation` : asked;
}

/** An address asked of a name: "address", "0x?", "resolve", "point to", "behind", "->", "which wallet". */
const ADDRESS_ASKED =
  /\b(?:add?ress|addr|resolves?|resolving|resolution|points?\s+(?:to|at)|behind|which\s+wallet|what\s+wallet|wallet\s+is)\b|->|\u2192|\b0x\?/i;
/** Other asks of a name: its registration, renewal or expiry, its NFTs, holdings or history, a message, a vote. */
const NOT_ADDRESS_ASKED =
  /\b(?:regist\w*|renew\w*|expir\w*|avail\w*|buy|mint\w*|nfts?|hold|holds|holding|holdings|balances?|bal|tokens?|txs?|transactions?|history|dm|message|xmtp|snapshot|proposals?|votes?|reverse|primary|avatar|text\s+records?)\b/i;

/**
 * The query with an ENS resolution spelled out where it holds an ENS name and asks its address
 * ("vitalik.eth -> 0x?", "which wallet address is behind vitalik.eth?"; twenty-ninth round): "address"
 * and "wallet" match balances, sends and refunds first, and "vitalik.eth" is not a word any endpoint
 * writes. Not where the name is asked anything else (`NOT_ADDRESS_ASKED`).
 */
function withEnsResolutionRead(asked: string, written: string): string {
  if (!ADDRESS_ASKED.test(written) || NOT_ADDRESS_ASKED.test(written)) return asked;
  return valueKindsOf(written).includes('ens') ? `${asked} ens name resolve address` : asked;
}

/** A Bitcoin address: bech32 (bc1…) or legacy base58 (1… or 3…, 26–35 characters). */
const BITCOIN_ADDRESS =
  /(?<![\p{L}\p{N}])(?:bc1[02-9ac-hj-np-z]{25,87}|[13][1-9A-HJ-NP-Za-km-z]{25,34})(?![\p{L}\p{N}])/iu;
/** A Bitcoin address's coins asked: its balance, its sats, what sits in it, its unspent outputs. */
const BITCOIN_HOLDINGS_ASKED =
  /\b(?:balances?|bal|sats|satoshis|hold|holds|holding|sitting|utxos?|unspent)\b/i;

/**
 * The query with a Bitcoin address's balance spelled out where it holds one and asks its coins ("how many
 * sats are in bc1q…?", "balance of bc1q…", "list unspent outputs for bc1q…"; thirtieth round): "sats"
 * and "balance" match fee estimates and other chains' balances first. Not a screening, inscriptions or a
 * payment request.
 */
function withBitcoinHoldingsRead(asked: string, written: string): string {
  if (!BITCOIN_HOLDINGS_ASKED.test(written) || !BITCOIN_ADDRESS.test(written)) return asked;
  if (
    /\b(?:sanction\w*|screen\w*|risk|mixers?|aml|kyt|inscri\w*|ordinals?|brc-?20|runes?|qr|invoice)\b/i.test(
      written,
    )
  )
    return asked;
  return /\b(?:utxos?|unspent)\b/i.test(written)
    ? `${asked} bitcoin address utxos unspent outputs`
    : `${asked} bitcoin address balance`;
}

/** A price asked: price, px, worth, trading at, value in a currency. */
const PRICE_ASKED = /\b(?:price|prices|px|worth|trading\s+at|value\s+in|usd\s+value)\b/i;

/**
 * The query with a token's price by its contract spelled out where it holds a 0x address and asks its
 * price without saying token or contract ("price of 0x6982…1933 on ethereum", "what's 0x6982… worth on
 * base?"; thirtieth round): "price" and the chain's name match the gas price and the coin's price first.
 * Not an account's holdings, an NFT's floor, a token's safety or a past price ("was", "were", a unix
 * time; a date is not read, so "USDC price at 2024-12-31 … (0xA0b8…)" is).
 */
function withContractPriceRead(asked: string, written: string): string {
  // Where the query says token or contract it is read well already, and the words only reorder the twins.
  if (!PRICE_ASKED.test(written) || /\b(?:token|contract|erc-?20)\b/i.test(written)) return asked;
  if (
    /\b(?:hold|holds|holding|holdings|held|balances?|tokens\s+(?:does|are|is)|what'?s\s+in|sitting|wallet|every|all|list|nfts?|floor|honeypot|scan|security|net\s*worth|total|positions?|lp|lending|portfolio|gas|liquidat\w*|hf|health|was|were|unix)\b/i.test(
      written,
    )
  )
    return asked;
  return valueKindsOf(written).includes('account') ? `${asked} token price by contract address` : asked;
}

/** A JSON Web Token: a base64url header that opens with `{"` (eyJ), a dot, and a payload that does too. */
const JWT_HELD = /(?<![\w-])eyJ[\w-]{8,}\.eyJ[\w-]*/;

/**
 * The query with a JWT decoding spelled out where it holds a token and does not say JWT ("what's inside
 * this token and when does it expire? eyJhbGciOi…"; twenty-ninth round): "token" and "expire" match
 * crypto tokens, API keys and certificates first.
 */
function withJwtRead(asked: string, written: string): string {
  if (!JWT_HELD.test(written) || /\bjwts?\b/i.test(written)) return asked;
  return `${asked} jwt decode`;
}

/** A picture described by its look: photorealistic, watercolour, an illustration, a painting, pixel art. */
const IMAGE_STYLE =
  /\b(?:photo-?realistic|watercolou?rs?|oil[- ]painting|pixel[- ]art|cartoon|anime|3d[- ]render|digital[- ]art|illustrations?|painting|drawing|sketch)\b/i;

/** A picture of a subject: "picture of a fox", "watercolour of a lighthouse", "illustration options of …". */
const PICTURE_OF =
  /\b(?:picture|image|photo|painting|illustration|drawing|watercolou?r|render|sketch|art)s?\s+(?:options\s+)?of\s+(?:a|an|the|two|three|some)?\s*\p{L}/iu;

/**
 * The query with an image generation spelled out where it describes a picture by its look and subject
 * ("photorealistic picture of a red fox in fresh snow, 16:9"): its words (fox, snow, dusk) match weather
 * and photos before a text-to-image model (twenty-third round). Not where it holds an image or a page
 * (a link, a file, "this photo") or already says text-to-image.
 */
function withImageGenerationRead(asked: string, written: string): string {
  if (!IMAGE_STYLE.test(written) || !PICTURE_OF.test(written)) return asked;
  if (
    /https?:\/\/|\.(?:png|jpe?g|gif|webp|pdf)\b|\b(?:this|these|my|their|our|the)\s+(?:photo|image|picture|scan|screenshot)s?\b|\b(?:text-?to-?image|txt2img|screenshot|ocr)\b/i.test(
      written,
    )
  )
    return asked;
  return `${asked} generate image text-to-image`;
}

/** The readings of this file and of tasks-of-a-text.ts, in the order step 0 runs them: each given the query as read so far and as written. */
export const TASKS_NAMED_BY_WHAT_IS_HELD: ReadonlyArray<(asked: string, written: string) => string> = [
  withGeocodingRead,
  withUnitConversionRead,
  withTranslationRead,
  withClassificationRead,
  withRewriteRead,
  withStockQuoteRead,
  withSelfNamedValueRead,
  withShortLinkRead,
  withTimeZoneConversionRead,
  withCoinPriceRead,
  withAddressHoldingsRead,
  withJsonExtractionRead,
  withModerationRead,
  withIpLocationRead,
  withEnsResolutionRead,
  withEntityExtractionRead,
  withImageGenerationRead,
  withPastCoinPriceRead,
  withSummaryRead,
  withCodeGenerationRead,
  withCurrencyConversionRead,
  withListCleaningRead,
  withPersonalDataRedactionRead,
  withAddressVerificationRead,
  withWebSearchRead,
  withTransactionStatusRead,
  withSiteDownRead,
  withWeatherNowRead,
  withAltTextRead,
  withPhoneCallRead,
  withTextToImageShortFormRead,
  withObjectCountRead,
  withOpenNearbyRead,
  withDriveTimeRead,
  withTextEmbeddingRead,
  withJwtRead,
  withBitcoinHoldingsRead,
  withContractPriceRead,
  withTextMessageRead,
  withChartQuestionRead,
  withMailWithFileRead,
];
