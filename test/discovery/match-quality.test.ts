import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryAsRead, withoutQuotedText } from '../../src/modules/discovery/ranking/as-read.js';
import {
  asksForAction,
  LEAD_FLOOR,
  matchEvidence,
  matchStrength,
  READ_ONLY_FOR_ACTION,
  STAND_OUT_FULL,
  WEAK_MATCH_BELOW,
} from '../../src/modules/discovery/ranking/match-quality.js';
import { buildSearchIndex } from '../../src/modules/discovery/ranking/search-index.js';
import { valueWords } from '../../src/modules/discovery/ranking/text.js';
import type { IndexedEndpoint } from '../../src/modules/discovery/ranking/types.js';
import { loadWordVectors } from '../../src/modules/discovery/ranking/vectors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { SMALL_CATALOGUE } from './catalogue.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, indexedEndpoint, keysOf } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: DISCOVERY_TEST_ENV });
  for (const p of SMALL_CATALOGUE) await createProvider(t, p);
});
afterAll(async () => {
  await t.close();
});

type Meta = { match_quality?: string; match_strength?: number };

/**
 * The first result for `query` among one-endpoint providers created for it (GET, one category), each
 * tagged `tag` so that the shared catalogue stays out of the answer.
 */
async function firstAmong(
  app: TestApp,
  tag: string,
  category: string,
  endpoints: ReadonlyArray<readonly [id: string, slug: string, description: string]>,
  query: string,
) {
  for (const [id, slug, description] of endpoints)
    await createProvider(app, {
      id,
      category,
      endpoints: [{ slug, method: 'GET', description, tags: [tag] }],
    });
  return keysOf(await discoverOk(app, { query, filters: { tags: [tag] } }))[0];
}

/** Each query of `readAs` is read (ranking step 0) as its pair says, each of `unchanged` as written. */
function expectReadAs(readAs: Array<[string, string]>, unchanged: string[]) {
  for (const [query, read] of readAs) expect(queryAsRead(query), query).toBe(read);
  for (const query of unchanged) expect(queryAsRead(query), query).toBe(query);
}

describe('a channel named as the verb ("text +1 …", "email bob@…", "ring him")', () => {
  it('is read as a request to send (or to call), and only where a request verb stands before whom it goes to', () => {
    expect(queryAsRead("Text +1 415 555 0123: 'Your table is ready'")).toBe('send sms Text +1 415 555 0123:');
    expect(queryAsRead('email bob@example.com a password reset link')).toBe(
      'send email email bob@example.com a password reset link',
    );
    expect(queryAsRead('My dad never reads texts. Ring him at 6pm')).toBe(
      'My dad never reads texts. call Ring him at 6pm',
    );
    expect(queryAsRead('can you text all 80 members that the pool is closed')).toBe(
      'can you send sms text all 80 members that the pool is closed',
    );
    // Where a request's verb stands is one rule for the channel verbs and the action rule (REQUEST_LEAD).
    expect(queryAsRead('I need to text all 80 members that the pool is closed')).toBe(
      'I need to send sms text all 80 members that the pool is closed',
    );
    for (const query of [
      'text to speech api',
      'text embeddings api',
      'email deliverability check',
      'email address for the CEO of nvidia.com',
      'sms otp send and verify',
      'phone number lookup',
      'TXT records for a domain',
      'remind +447700900123 tomorrow about the dentist',
    ])
      expect(queryAsRead(query), query).toBe(query);
  });

  it('ranks the sender above a lookup of the same number', async () => {
    for (const [id, description] of [
      ['linecheck', 'Validate a mobile phone number: whether it can receive text, its carrier and country.'],
      ['smsgate', 'Send an SMS to a mobile phone number.'],
    ] as const)
      await createProvider(t, {
        id,
        category: 'communication',
        endpoints: [
          {
            slug: 'number',
            method: 'POST',
            description,
            tags: ['channelverb'],
            parameters: { phone: { type: 'string', required: true, description: 'Phone number, E.164' } },
          },
        ],
      });
    const body = await discoverOk(t, {
      query: "text +1 415 555 0123: 'your table for two is ready'",
      filters: { tags: ['channelverb'] },
    });
    expect(keysOf(body)).toEqual(['smsgate/number', 'linecheck/number']);
  });
});

describe('a news topic ("latest news on the ECB rate decision")', () => {
  it('is read as payload, from on/about/of/mentioning to a time or the end of the clause; other words keep theirs', () => {
    expectReadAs(
      [
        ['latest news on the ECB interest rate decision', 'latest news'],
        ['any news this week about Northvolt going bankrupt?', 'any news this week?'],
        ['headlines about the port strike, from the last 24 hours', 'headlines, from the last 24 hours'],
        ['any articles this week about Figma changing its pricing?', 'any articles this week?'],
        ['latest coverage of the ECB rate decision', 'latest coverage'],
        ['news articles mentioning Northvolt', 'news articles'],
        [
          'news articles about lithium mining in Chile published in March 2023',
          'news articles published in March 2023',
        ],
      ],
      [
        'is the news flow on $AMD leaning bullish',
        'post an update about the outage',
        'put our press release about the launch on the newswire',
        'press 1 to confirm the appointment',
      ],
    );
  });

  it('ranks the news search above the data about the topic', async () => {
    const first = await firstAmong(
      t,
      'newstopic',
      'data_intelligence',
      [
        [
          'ratedesk',
          'latest',
          'Central bank interest rate decisions: the latest policy rate of the ECB, the Fed and others.',
        ],
        ['wirefind', 'latest', 'Search the latest news articles by keyword, with headline, source and date.'],
      ],
      'latest news on the ECB interest rate decision',
    );
    expect(first).toBe('wirefind/latest');
  });
});

describe('an amount of one token asked against another (eighteenth round)', () => {
  it('is read as a swap; one token, two held, a chain, a send or a bridge are not', () => {
    expectReadAs(
      [
        [
          'how much USDC would I get for 2 ETH on Arbitrum?',
          'how much USDC would I get for 2 ETH swap on Arbitrum?',
        ],
        ['if I sell 1.5 WETH for USDC, what do I get', 'if I sell 1.5 WETH swap for USDC, what do I get'],
      ],
      [
        'price of 2 ETH in USD',
        'how much are my 0.35 btc and 4 eth worth in euros',
        'bridge 500 usdc from eth mainnet to base',
        'send 4,200 USDC to payroll.kestrel-dao.eth',
        'swap 2 ETH to USDC on Base',
        'eth gas now',
      ],
    );
  });
});

describe('a flight number (eighteenth round)', () => {
  it('is read as a flight; a fiscal year, a postcode, an IBAN, PM2.5 or a query that says flight are not', () => {
    expectReadAs(
      [
        ['is LH400 on time today?', 'is LH400 flight on time today?'],
        ['where is BA283 right now? my mom is on it', 'where is BA283 flight right now? my mom is on it'],
      ],
      [
        'is flight LH400 delayed?',
        'Microsoft Q2 FY2024 earnings call transcript',
        'is 10 Downing Street, London SW1A 2AA a valid address',
        'parcel to Leeds LS10 1AB',
        'is DE89 3704 0044 0532 0130 00 a valid iban',
        'PM2.5 level in Delhi today',
        'rerank my BM25 candidates',
      ],
    );
  });
});

describe('one kind of place held and the other named (nineteenth round)', () => {
  it('is read as a geocoding; a kind named without the other held, or an address of another kind, is not', () => {
    expectReadAs(
      [
        [
          'lat/long for 1600 Amphitheatre Pkwy, Mountain View CA',
          'lat/long for 1600 Amphitheatre Pkwy, Mountain View CA geocode',
        ],
        ["turn '221B Baker Street, London NW1 6XE' into lat/lng", 'turn into lat/lng geocode'],
        [
          'what street adress is at 48.8584, 2.2945?',
          'what street adress is at 48.8584, 2.2945? reverse geocode',
        ],
        [
          'reverse lookup: address at 40.6892, -74.0445',
          'reverse lookup: address at 40.6892, -74.0445 geocode',
        ],
      ],
      [
        'give me the box coords of every car in this photo',
        'weather at 48.8584, 2.2945 tomorrow',
        'elevation at 48.8584, 2.2945 and the IP address of this server',
        'is 10 Downing Street, London a valid address',
        'geocode 1600 Amphitheatre Pkwy to lat/long',
        'what time zone is 40.7484, -73.9857 in; e-mail address for their support?',
      ],
    );
  });
});

describe('an amount in one unit asked in another (nineteenth round)', () => {
  it('is read as a unit conversion; a currency, a unit alone or a query that says convert are not', () => {
    expectReadAs(
      [
        ['72 fahrenheit in celsius', '72 fahrenheit in celsius convert units'],
        ['350 °F in °C? oven recipe', '350 °F in °C? oven recipe convert units'],
        ['marathon 26.2 miles in km', 'marathon 26.2 miles in km convert units'],
        ['3/4 cup of flour in grams', '3/4 cup of flour in grams convert units'],
      ],
      [
        'convert 72 F to C',
        '100 pounds in euros',
        'weather in Oslo in celsius',
        'route of 12 km to the airport',
        'ship 5 kg to Berlin',
      ],
    );
  });
});

describe('a text held and the language it is wanted in (twenty-first round)', () => {
  it('is read as a translation; a currency, plain English, speech and documents are not', () => {
    expectReadAs(
      [
        ["what does 'Wo ist der Bahnhof?' mean in English", 'what does mean in English translate'],
        ["Put 'Your order has shipped' into polite Japanese", 'Put into polite Japanese translate'],
        ["Polish version of: 'Your parcel is waiting'", 'Polish version of: translate'],
        ["how do you say 'where is the pharmacy?' in portuguese", 'how do you say in portuguese translate'],
        // Said already, or spoken: the quoted text is left out, nothing is added.
        ["translate 'Wo ist der Bahnhof?' into English", 'translate into English'],
        [
          "read 'Guten Morgen' aloud in German with a female voice",
          'read aloud in German with a female voice',
        ],
      ],
      [
        'How much is 2,500 euros in Japanese yen today?',
        'what does cron */15 9-17 * * 1-5 mean in plain english',
        'our user manual is a 12-page .docx - we need a Japanese version that keeps the layout',
        'embeddings for 500 product descriptions written in French and German',
      ],
    );
  });
});

describe('items sorted into the classes a query lists (twenty-first round)', () => {
  it('is read as a classification; a sort by a field, a route by a mode, or a query that says classify are not', () => {
    expectReadAs(
      [
        [
          'sort incoming support tickets into billing / bug / feature request',
          'sort incoming support tickets into billing / bug / feature request text classification classify categories',
        ],
        [
          "label short support tickets as 'urgent' or 'not urgent'",
          'label short support tickets as or text classification classify categories',
        ],
        [
          'tag support tickets as billing, bug or feature-request',
          'tag support tickets as billing, bug or feature-request text classification classify categories',
        ],
      ],
      [
        'pharmacies near 40.7411,-73.9897 sorted by distance',
        'public transport route from Gare du Nord to Orly airport by metro/RER/bus',
        'classify this ticket as billing / bug / feature',
        'route this e-mail to the billing team',
      ],
    );
  });
});

describe('a text held and asked to sound another way (twenty-first round)', () => {
  it('is read as a rewrite; a query that says rewrite, or asks for a voice, is not', () => {
    expectReadAs(
      [
        [
          "make this sound more professional before I send it to my boss: 'hey cant make it tmrw'",
          'make this sound more professional before I send it to my boss: rewrite text',
        ],
        [
          "make this msg to my landlord sound less angry: 'the heater is broken'",
          'make this msg to my landlord sound less angry: rewrite text',
        ],
      ],
      [
        'make the intro music sound warmer',
        'make my voice sound deeper in this recording',
        'fine-tune a model so it answers in our tone of voice',
      ],
    );
  });
});

describe('a ticker asked its price and nothing else (twenty-first round)', () => {
  it('is read as a stock quote; a coin, a lower-case word, or a ticker with another need is not', () => {
    expectReadAs(
      [
        ['AAPL last price', 'AAPL last price stock quote'],
        ['NVDA share price rn', 'NVDA share price rn stock quote'],
        ['tsla share price', 'tsla share price stock quote'],
        ['$TSLA quote?', '$TSLA quote? stock quote'],
        // A coin's ticker is read as a coin's price (below), not as a stock's.
        ['ETH price', 'ETH price crypto coin price'],
        ['btc price now', 'btc price now crypto coin price'],
        ['PEPE price now', 'PEPE price now crypto coin price'],
        ['SOL last price', 'SOL last price crypto coin price'],
      ],
      [
        'gas price now',
        'rice price',
        'list every officer/director sale of TSLA stock in the last 90 days',
        'NVDA options chain',
        'daily AAPL prices from 2019 through 2023',
      ],
    );
  });
});

describe('a value that says what it is, and little else (twenty-second round)', () => {
  it('is read as its kind; an invalid check digit, the kind named, or an ask in more words are not', () => {
    expectReadAs(
      [
        ['1HGCM82633A004352', '1HGCM82633A004352 vin decode vehicle'],
        ['wheres my parcel 1Z999AA10123456784', 'wheres my parcel 1Z999AA10123456784 ups track package'],
        ['DE89370400440532013000', 'DE89370400440532013000 iban'],
        ['DE89 3704 0044 0532 0130 00 which bank?', 'DE89 3704 0044 0532 0130 00 which bank? iban'],
        ['5449000000996', '5449000000996 barcode product ean'],
        ['30 2 * * 0 next 5 runs', '30 2 * * 0 next 5 runs cron expression schedule'],
      ],
      [
        'decode vin 1HGCM82633A004352',
        'track UPS package 1Z999AA10123456784',
        'DE89370400440532013001',
        'validate IBAN DE89370400440532013000',
        '5449000000997',
        'aws bill per service for march 2024, acct 123456789012',
        'what does the cron line 30 2 * * 0 actually mean',
        '30 2 5 7 1',
        'Send our order_shipped WhatsApp template to +34 612 345 678 with tracking 1Z999AA10123456784',
      ],
    );
  });
});

describe('a short link held (twenty-second round)', () => {
  it('is read as a link to expand; a link shortened, expanded in those words, or counted is not', () => {
    expectReadAs(
      [
        [
          'where does bit.ly/3xYz actually go',
          'where does bit.ly/3xYz actually go expand short url redirect',
        ],
        [
          "Where does 'https://bit.ly/3xYzAbC' lead? before anyone clicks it",
          'Where does lead? before anyone clicks it expand short url redirect',
        ],
      ],
      [
        'shorten https://example.com/a/very/long/path',
        'expand bit.ly/3xYz',
        'how many clicks did bit.ly/3xYz get last week',
        'where does https://example.com/r/42 redirect',
        'orbit.ly/3xYz pricing',
      ],
    );
  });
});

describe('a clock time asked in another place (twenty-second round)', () => {
  it('is read as a time zone conversion; the time now, a schedule, or a query that says convert is not', () => {
    expectReadAs(
      [
        [
          '3pm in New York is what time in Tokyo?',
          '3pm in New York is what time in Tokyo? time zone convert',
        ],
        [
          'Standup is at 9:30 in London. What time is that in Seoul?',
          'Standup is at 9:30 in London. What time is that in Seoul? time zone convert',
        ],
        ['9am new york = what time in tokyo', '9am new york = what time in tokyo time zone convert'],
      ],
      [
        'what time is it in Tokyo right now',
        'convert 3pm New York time to Tokyo time',
        'remind me tomorrow at 9am about the dentist',
        'what time zone is 48.85, 2.35 in',
        'what time does the 3pm train from Leeds arrive?',
      ],
    );
  });
});

describe('a coin asked its price and nothing else (twenty-second round)', () => {
  it('is read as a coin price; gas, a balance, a date or another word is not', () => {
    expectReadAs(
      [
        ['eth price usd', 'eth price usd crypto coin price'],
        ['price of SOL in EUR', 'price of SOL in EUR crypto coin price'],
        ['BTC ETH SOL spot px in usd', 'BTC ETH SOL spot px in usd crypto coin price'],
        [
          "What's bitcoin worth in euros right now?",
          "What's bitcoin worth in euros right now? crypto coin price",
        ],
      ],
      [
        'eth gas price now',
        'SOL balance of 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
        'ETH price chart for 2021',
        'sol usd price, cheapest source pls',
        'rice price in usd',
      ],
    );
  });
});

describe('a 0x address asked what it holds (twenty-second round)', () => {
  it('is read as a wallet balance; NFTs, transactions, a price, a position, a send or a deploy are not', () => {
    const a = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
    expectReadAs(
      [
        [`how much ETH does ${a} hold`, `how much ETH does ${a} hold wallet balance`],
        [`eth bal ${a}`, `eth bal ${a} wallet balance`],
      ],
      [
        `which NFTs does ${a} own`,
        `show last 20 txs of ${a}`,
        `send 0.1 ETH to ${a}`,
        `deploy an erc20 with 1,000,000 supply minted to ${a}`,
        `what does wallet ${a} hold`,
        `is ${a} a binance hot wallet?`,
        `price of token ${a} on ethereum`,
        `aave v3 health factor for ${a}: how close am I to liquidation at what ETH price?`,
      ],
    );
  });
});

describe('a text held and its fields asked back as JSON (twenty-third round)', () => {
  it('is read as an extraction; a file, a page, a table, search results or a query that says extract are not', () => {
    expectReadAs(
      [
        [
          "Turn this email into JSON {invoice_number, amount, due_date}: 'Hi team, invoice INV-2291 for $4,310.00 is due on 30 September.'",
          'Turn this email into JSON {invoice_number, amount, due_date}: extract structured data json',
        ],
        [
          'pull the customer name and order no. out of this email body as json',
          'pull the customer name and order no. out of this email body as json extract structured data json',
        ],
      ],
      [
        'convert this csv to json',
        'turn supplier invoices (PDF) into JSON with line items and the total',
        'pull the title and price from https://shop.example.com/p/123 into json',
        'receive inbound emails sent to support@ and forward them to my webhook as json',
        'give us an email address that turns incoming supplier order emails into JSON',
        'extract vendor and total as JSON from the email text',
        'return the weather for Oslo as json',
      ],
    );
  });
});

describe('a text held and asked whether it is abusive (twenty-third round)', () => {
  it('is read as a moderation; without the text, or where the query says moderate, it is not', () => {
    expectReadAs(
      [
        [
          "is this comment toxic: 'you are an idiot and should leave'",
          'is this comment toxic: content moderation toxicity',
        ],
        [
          "should this forum comment be blocked? 'you people are idiots'",
          'should this forum comment be blocked? content moderation toxicity',
        ],
        ["moderate this comment: 'you are an idiot'", 'moderate this comment:'],
      ],
      [
        'is this comment toxic',
        'which block will my tx land in? hide nothing',
        'summarise the toxic comments thread',
      ],
    );
  });
});

describe('an IPv4 address asked where it is (twenty-third round)', () => {
  it('is read as an IP geolocation; where the query says IP, or asks something else of the address, it is not', () => {
    expectReadAs(
      [
        ['where is 8.8.8.8', 'where is 8.8.8.8 ip geolocation'],
        ['which country is 185.220.101.4 in?', 'which country is 185.220.101.4 in? ip geolocation'],
      ],
      [
        'where is ip 8.8.8.8',
        'is 185.220.101.4 a tor exit or vpn',
        'point the A record of mydomain.com at 203.0.113.7',
        'where is version 1.2.3.4.5 released',
      ],
    );
  });
});

describe('a text held and asked its people, companies or places (twenty-third round)', () => {
  it('is read as entity recognition; one kind, talk about a brand, a mask or a table booking are not', () => {
    expectReadAs(
      [
        [
          "pull out every person, company and place mentioned in: 'Satya Nadella met Rishi Sunak in London'",
          'pull out every person, company and place mentioned in: named entity recognition extract entities',
        ],
        [
          'pull out people + org names from a press release',
          'pull out people + org names from a press release named entity recognition extract entities',
        ],
      ],
      [
        'list the companies mentioned in this press release',
        'what are people saying about our brand on reddit',
        'mask the people and companies named in these transcripts',
        'book a table for 4 at an italian place in Lisbon',
      ],
    );
  });
});

describe('a picture described by its look and subject (twenty-third round)', () => {
  it('is read as an image generation; an image held, a screenshot or another use of the word is not', () => {
    expectReadAs(
      [
        [
          'photorealistic picture of a red fox in fresh snow, 16:9',
          'photorealistic picture of a red fox in fresh snow, 16:9 generate image text-to-image',
        ],
        [
          'watercolor picture of a red fox in the snow',
          'watercolor picture of a red fox in the snow generate image text-to-image',
        ],
      ],
      [
        'pull the text out of this photo of a watercolor painting',
        'remove the background of this image of a watercolor',
        'find the work email of Sofia so I can send her my illustration portfolio',
        'text-to-image: a watercolor picture of a fox',
      ],
    );
  });
});

describe('a coin asked its price on a date (twenty-third round, after its judges)', () => {
  it('is read as a historical coin price; a range, gas or a stock is not', () => {
    expectReadAs(
      [
        [
          'what was bitcoin worth on 10 nov 2021',
          'what was bitcoin worth on 10 nov 2021 historical crypto price on date',
        ],
        [
          'ETH closing price in USD on 2021-11-10, for a tax report',
          'ETH closing price in USD on 2021-11-10, for a tax report historical crypto price on date',
        ],
      ],
      [
        'ETH OHLC candles from 2021-11-01 to 2021-11-30',
        'what was the gas price on 2021-11-10',
        'apple stock price on 2021-11-10',
      ],
    );
  });
});

describe('a text asked boiled down in its own words (twenty-fourth round)', () => {
  it('is read as a summary; a query that says summary or another use of the words is not', () => {
    expectReadAs(
      [
        [
          'tl;dr this 8-page supplier contract into 5 bullet points',
          'tl;dr this 8-page supplier contract into 5 bullet points summarize summary',
        ],
        ['boil the text down to what matters', 'boil the text down to what matters summarize summary'],
        [
          'Condense this 40-page board meeting transcript into five bullet points for the CEO.',
          'Condense this 40-page board meeting transcript into five bullet points for the CEO. summarize summary',
        ],
      ],
      [
        'summarize this article in 3 bullets: https://example.org/story',
        'how long to boil an egg',
        'key rotation for our KMS points',
      ],
    );
  });
});

describe('code asked in a programming language (twenty-fourth round)', () => {
  it('is read as a code generation; code held to review, fix or explain is not', () => {
    expectReadAs(
      [
        [
          'write a python function that parses ISO 8601 durations like P3DT4H',
          'write a python function that parses ISO 8601 durations like P3DT4H code generation generate code',
        ],
        [
          'give me a Postgres query for the top 5 customers by revenue',
          'give me a Postgres query for the top 5 customers by revenue code generation generate code',
        ],
      ],
      [
        'fix this python function: def f(x): return x +',
        'explain this SQL query to me',
        'I need to go for a run, weather in Oslo?',
        'write a java coffee review for my blog',
      ],
    );
  });
});

describe('an amount of money asked in another currency (twenty-fourth round)', () => {
  it('is read as a currency conversion; tokens, a refund or a query that says convert is not', () => {
    expectReadAs(
      [
        ['250 EUR in JPY', '250 EUR in JPY currency conversion exchange rate'],
        [
          'Supplier invoice is 2,450 CAD. How much is that in euros today?',
          'Supplier invoice is 2,450 CAD. How much is that in euros today? currency conversion exchange rate',
        ],
      ],
      [
        'convert 250 EUR to JPY',
        "refund $49 to the customer's visa card",
        'what is 2 ETH worth in USD',
        'pay the 250 EUR invoice by card',
      ],
    );
  });
});

describe('a mailing list asked rid of its dead and fake addresses (twenty-fourth round)', () => {
  it('is read as a bulk e-mail verification; a bounce asked about or a list verified already is not', () => {
    expectReadAs(
      [
        [
          'We are about to send a campaign to 40k contacts. Remove the dead and fake addresses from the list first.',
          'We are about to send a campaign to 40k contacts. Remove the dead and fake addresses from the list first. bulk email verification verify',
        ],
      ],
      [
        'did the email I sent to bob@example.com bounce?',
        'verify a list of 8,000 emails and drop the ones that bounce',
        'remove dead links from my blog posts',
      ],
    );
  });
});

describe('personal data asked out of a text (twenty-fifth round)', () => {
  it('is read as a PII redaction; one kind, another use of the verbs or a query that says redact is not', () => {
    expectReadAs(
      [
        [
          'strip names, emails and SSNs out of support tickets before they go to a third-party LLM',
          'strip names, emails and SSNs out of support tickets before they go to a third-party LLM pii redaction redact personal data',
        ],
      ],
      [
        'redact emails and phone numbers from chat logs',
        'hide my phone number from my public profile',
        'remove duplicate names from my contact list',
      ],
    );
  });
});

describe('an e-mail address asked whether it is real (twenty-fifth round)', () => {
  it('is read as an e-mail verification; mail already sent, two addresses or a query that says verify is not', () => {
    expectReadAs(
      [
        [
          'is mark@example.org a real inbox? dont want my newsletter to bounce',
          'is mark@example.org a real inbox? dont want my newsletter to bounce email verification verify',
        ],
      ],
      [
        'did my email to ops@meridianfund.com bounce?',
        'verify bob@acme.com before signup',
        'are alice@acme.com and bob@acme.com real inboxes?',
      ],
    );
  });
});

describe("a search engine's results asked for (twenty-fifth round)", () => {
  it('is read as a web search; search volumes, another Google product or a query that says web search is not', () => {
    expectReadAs(
      [
        [
          'top google results for best bookkeeping software for freelancers uk',
          'top google results for best bookkeeping software for freelancers uk web search serp',
        ],
      ],
      [
        'monthly google search volume for air fryer',
        'append a row to a google sheet',
        'web search: google results for best crm',
      ],
    );
  });
});

describe('a transaction hash asked whether it went through (twenty-sixth round)', () => {
  it('is read as a transaction status; a query that names the transaction or decodes it is not', () => {
    expectReadAs(
      [
        [
          'Customer swears they paid. Has 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 gone through?',
          'Customer swears they paid. Has 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 gone through? transaction status',
        ],
      ],
      [
        'did tx 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 succeed or revert?',
        'decode 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 and tell me if it failed',
        'what is 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
      ],
    );
  });
});

describe('a site asked whether it is down (twenty-sixth round)', () => {
  it('is read as an uptime check; an outage to page someone about, a price or a renewal is not', () => {
    expectReadAs(
      [
        ['is mysite.com down or is it just me', 'is mysite.com down or is it just me website uptime check'],
        ['site not loading for me, is it down?', 'site not loading for me, is it down? website uptime check'],
      ],
      [
        'page whoever is on call: prod database is down',
        'EV at 52.5200,13.4050 is down to 12% battery, find a charger',
        'when is stripe.com up for renewal',
        'is NVDA up or down today?',
      ],
    );
  });
});

describe('a flight number written with a space (twenty-sixth round)', () => {
  it('is read as a flight where the query asks what a flight is asked; other codes are not', () => {
    expectReadAs(
      [['is UA 857 SFO to PVG on time today?', 'is UA 857 flight SFO to PVG on time today?']],
      ['US 2024 election results on time', 'ship to CA 9410 today', 'is LH 902 a good seat'],
    );
  });
});

describe('the weather asked now (twenty-seventh round)', () => {
  it('is read as the current conditions; a forecast, history, air quality or aviation weather is not', () => {
    expectReadAs(
      [
        ['weather rn in oslo', 'weather rn in oslo current weather conditions'],
        ['is it raining in Porto right now?', 'is it raining in Porto right now? current weather conditions'],
        ['wether in oslo rn', 'wether in oslo rn current weather conditions'],
        ['wx now 59.91,10.75', 'wx now 59.91,10.75 current weather conditions'],
      ],
      [
        'will it start raining in the next 30 min at 51.5072,-0.1276?',
        'is it safe to run now? current PM2.5 in Delhi',
        'weather forecast for tomorrow in Oslo',
        "What's the wind and cloud base at Heathrow right now? Doing a preflight brief.",
        'how much is in our hot wallet right now',
        'give me a temp mail address right now',
        'whether to book the flight now or wait',
      ],
    );
  });
});

describe('alt text asked (twenty-seventh round)', () => {
  it('is read as an image caption; a query that says caption is not', () => {
    expectReadAs(
      [
        [
          'auto alt text for user uploaded imgs (a11y)',
          'auto alt text for user uploaded imgs (a11y) image caption describe image',
        ],
      ],
      ['caption these images for alt text', 'alternative text formats for an ebook'],
    );
  });
});

describe('a phone number called to say something (twenty-seventh round)', () => {
  it('is read as a phone call; a text, a code, a webhook or a number looked up is not', () => {
    expectReadAs(
      [
        [
          "call +1 212 555 0188 and tell them tomorrow's meeting moved to 4pm",
          "call +1 212 555 0188 and tell them tomorrow's meeting moved to 4pm phone call",
        ],
      ],
      [
        'call +1 212 555 0188 and tell them in a text that the meeting moved',
        'call my webhook and tell it when BTC falls below 50k',
        'who owns +1 212 555 0199? read me the name',
        'call +1 415 555 0100 and read them a 6-digit verification code',
      ],
    );
  });
});

describe('an ENS name asked its address (twenty-ninth round)', () => {
  it('is read as an ENS resolution; its registration, NFTs, holdings or a message to it is not', () => {
    expectReadAs(
      [
        ['vitalik.eth -> 0x?', 'vitalik.eth -> 0x? ens name resolve address'],
        [
          'which wallet address is behind studiokoi.eth? sending them a refund',
          'which wallet address is behind studiokoi.eth? sending them a refund ens name resolve address',
        ],
      ],
      [
        'register agentsmith.eth for 1 yr and point it at our multisig',
        'what NFTs does vitalik.eth hold?',
        'USDC balance of vitalik.eth on mainnet',
        'send an onchain DM to vitalik.eth saying our grant report is live',
        'what address is the Eiffel Tower at',
      ],
    );
  });
});

describe('text to image named by its short form (twenty-ninth round)', () => {
  it('is read as an image generation; txt2vid and other tokens with a digit are not', () => {
    expectReadAs(
      [
        [
          'txt2img: cyberpunk bull charging down wall st, 1024x1024',
          'txt2img: cyberpunk bull charging down wall st, 1024x1024 text to image generate image',
        ],
      ],
      ['txt2vid: 10s clip of a rocket launch', 'b2b leads for 2fa vendors', 'convert mp4 to gif, 2x speed'],
    );
  });
});

describe('how many of something an image shows (twenty-ninth round)', () => {
  it('is read as an object count; a meal asked its calories or a company its staff is not', () => {
    expectReadAs(
      [
        [
          'How many people are standing in this photo of our lunchtime queue?',
          'How many people are standing in this photo of our lunchtime queue? count objects in image detect objects',
        ],
        [
          'how many cars are in https://cams.test/lot3.jpg',
          'how many cars are in https://cams.test/lot3.jpg count objects in image detect objects',
        ],
      ],
      [
        'how many calories in this photo of my lunch https://img.example.org/lunch.jpg',
        'how many people work at brightfern.io?',
        'how many people search for dog groomer each month',
      ],
    );
  });
});

describe('a place open now near where the user is (twenty-ninth round)', () => {
  it('is read as a nearby place search; a market open, or open now with no place near, is not', () => {
    expectReadAs(
      [
        [
          "Nearest builders' merchant to 52.4862,-1.8904 that's open at the moment?",
          "Nearest builders' merchant to 52.4862,-1.8904 that's open at the moment? places nearby search",
        ],
      ],
      ['Is the Tokyo Stock Exchange open right now?', 'is the support ticket still open?'],
    );
  });
});

describe('an address asked as coordinates, neither held (twenty-ninth round)', () => {
  it('is read as a geocoding; coordinates asked as an address are not', () => {
    expectReadAs(
      [
        ['turn street address into lat long', 'turn street address into lat long geocode'],
        [
          'I have 40 addresses in a spreadsheet. Turn all of them into lat/long in one go',
          'I have 40 addresses in a spreadsheet. Turn all of them into lat/long in one go geocode',
        ],
      ],
      ['turn lat long into a street address', 'send the invoice to the address on file'],
    );
  });
});

describe('how long a drive from one place to another takes (twenty-ninth round)', () => {
  it("is read as a route; a matrix of many origins or a driver's hours left is not", () => {
    expectReadAs(
      [
        [
          "How long is the drive from Evanston IL to O'Hare if we leave at 6am Monday?",
          "How long is the drive from Evanston IL to O'Hare if we leave at 6am Monday? driving directions route travel time",
        ],
      ],
      [
        'drive time from every depot to every customer',
        'how much drive time does driver D-208 have left before the 11 hr limit',
        'how long does a test drive take',
      ],
    );
  });
});

describe('texts asked as vectors, without the word embedding (twenty-ninth round)', () => {
  it('is read as a text embedding; stored vectors queried, chunks, a CVSS vector or images are not', () => {
    expectReadAs(
      [
        [
          'vectorise 5k product descriptions so the shop search understands meaning',
          'vectorise 5k product descriptions so the shop search understands meaning text embeddings embed',
        ],
      ],
      [
        'knn top_k=10 on my vector index',
        'need the CVSS vector for CVE-2021-44228',
        'vectors for product imgs, visual similarity search',
        'embed 200 product descriptions for semantic search',
      ],
    );
  });
});

describe('a JWT held without the word (twenty-ninth round)', () => {
  it('is read as a JWT decoding; a query that says JWT, or another token, is not', () => {
    expectReadAs(
      [
        [
          "what's inside this token and when does it expire? eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig",
          "what's inside this token and when does it expire? eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig jwt decode",
        ],
      ],
      [
        'decode this jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc',
        'when does my API token sk_live_abc123 expire',
      ],
    );
  });
});

describe('a Bitcoin address asked its coins (thirtieth round)', () => {
  it('is read as its balance, or its unspent outputs; a screening or inscriptions are not', () => {
    expectReadAs(
      [
        [
          'how many sats are in bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?',
          'how many sats are in bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq? bitcoin address balance',
        ],
        [
          'list unspent outputs for bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
          'list unspent outputs for bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq bitcoin address utxos unspent outputs',
        ],
      ],
      [
        'Before crediting a deposit, check whether bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh has links to sanctioned entities; what is its balance',
        'what inscriptions are sitting in bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
        'what is the balance of my savings account',
      ],
    );
  });
});

describe("a token's contract asked its price (thirtieth round)", () => {
  it("is read as a token price by contract; an account's holdings, an NFT floor or a past price is not", () => {
    expectReadAs(
      [
        [
          "what's 0x6982508145454ce325ddbe47a58f5c5f4f9f5b1e worth on base?",
          "what's 0x6982508145454ce325ddbe47a58f5c5f4f9f5b1e worth on base? token price by contract address",
        ],
      ],
      [
        'floor price BAYC 0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d',
        'what was token 0x4ed4E862860beD51a9570b96d89aF5E1B0Efefed on base worth at unix time 1700000000',
        'price of the Sony WH-1000XM5 headphones',
      ],
    );
  });
});

describe('a text message asked by how it goes (thirtieth round)', () => {
  it('is read as a send, a bulk send to many; a code, replies or a blast cancelled is not', () => {
    expectReadAs(
      [
        [
          'let all 800 members of the running club know by text that the race has moved to sunday',
          'let all 800 members of the running club know by text that the race has moved to sunday bulk sms send',
        ],
        [
          'blast a text to all 230 loyalty customers about the sale',
          'blast a text to all 230 loyalty customers about the sale bulk sms send',
        ],
        [
          'Let the customer at +1 416 555 0199 know by text that their curbside pickup is ready',
          'Let the customer at +1 416 555 0199 know by text that their curbside pickup is ready send sms',
        ],
      ],
      [
        '2fa: send a login code by sms then check the code the user types in',
        "did anyone reply by sms to yesterday's promo blast?",
        'cancel the SMS blast batch_7781 scheduled for 6pm',
        'run a BLAST alignment of this DNA sequence',
        'remind me by text tomorrow',
      ],
    );
  });
});

describe('a chart held as a picture and asked about (thirtieth round)', () => {
  it('is read as a visual question; a chart to make, post or caption is not', () => {
    expectReadAs(
      [
        [
          'what does this chart show? https://files.example.com/q3-revenue.png',
          'what does this chart show? https://files.example.com/q3-revenue.png visual question answering ask about image',
        ],
      ],
      [
        'make a bar chart png of monthly revenue',
        "post today's BTC chart png (https://charts.alpha.io/btc.png) to our telegram channel",
        'bitcoin price chart for the last month',
      ],
    );
  });
});

describe('many addresses held in a file, coordinates named (thirtieth round)', () => {
  it('is read as a batch geocoding; one address or coordinates held is not', () => {
    expectReadAs(
      [
        [
          'I have 800 delivery addresses in a CSV - need coordinates for all of them in one request.',
          'I have 800 delivery addresses in a CSV - need coordinates for all of them in one request. batch geocode',
        ],
      ],
      [
        'coordinates for the address on the invoice',
        'I have 800 store coordinates in a CSV and need their addresses',
      ],
    );
  });
});

describe('a file asked e-mailed to an address held (thirty-first round)', () => {
  it('is read as an e-mail with an attachment; a signature, a check of the address or a quoted subject is not', () => {
    expectReadAs(
      [
        [
          'email quote_1182.pdf to client@harbourfoods.com',
          'email quote_1182.pdf to client@harbourfoods.com send email with attachment',
        ],
        [
          'Order-shipped step: email maria@example.com her invoice with the PDF attached.',
          'Order-shipped step: email maria@example.com her invoice with the PDF attached. send email with attachment',
        ],
      ],
      [
        'Send the NDA at https://docs.acme.com/nda-v3.pdf to jane@acme.com and tom@betaworks.io to e-sign',
        'get the tenancy agreement PDF signed by Jo Park (jo.park@mail.com) electronically',
        'Invoice Orbit Foods for 12 hours of consulting and email it to ap@orbitfoods.com.',
        'send the invoice PDF to billing@globex.com by post as a letter',
        'the invoice PDF from billing@globex.com: pull the total out as JSON',
      ],
    );
  });
});

describe('what step 0 spells out ranks first (eighteenth to thirty-first rounds)', () => {
  // An app of their own: a flight status in the shared one moved another test's GET-only strength.
  let u: TestApp;
  beforeAll(async () => {
    u = await createTestApp({ env: DISCOVERY_TEST_ENV });
    for (const p of SMALL_CATALOGUE) await createProvider(u, p);
  });
  afterAll(async () => {
    await u.close();
  });

  it.each([
    {
      spelled: 'a swap',
      tag: 'tokenswap',
      category: 'blockchain',
      endpoints: [
        ['tokenspot', 'price', 'Token price: the live USD price of ETH, USDC or any token.'],
        ['dexquote', 'quote', 'Swap quote: the best DEX route for ETH, USDC or any token, and the output.'],
      ],
      query: 'how much USDC would I get for 2 ETH on Arbitrum?',
      first: 'dexquote/quote',
    },
    {
      spelled: 'a flight',
      tag: 'flightno',
      category: 'data_intelligence',
      endpoints: [
        ['skyline', 'today', 'Weather today: rain, wind and the forecast.'],
        ['airtrack', 'status', 'Flight status for today: departure, arrival, gate and delay of a flight.'],
      ],
      query: 'is LH400 on time today?',
      first: 'airtrack/status',
    },
    {
      spelled: 'a geocoding',
      tag: 'geocoding',
      category: 'data_intelligence',
      endpoints: [
        [
          'zonepoint',
          'zone',
          'Time zone at a latitude and longitude: the IANA zone and UTC offset of a point.',
        ],
        ['postpin', 'geocode', 'Geocode a postal address: where it lies on the map.'],
      ],
      query: 'lat/long for 1600 Amphitheatre Pkwy, Mountain View CA',
      first: 'postpin/geocode',
    },
    {
      spelled: 'a unit conversion',
      tag: 'unitconv',
      category: 'utility',
      endpoints: [
        ['skytemp', 'daily', 'Daily temperature forecast in fahrenheit or celsius for a city.'],
        ['metricly', 'convert', 'Convert units of length, mass, volume and temperature (celsius, kelvin).'],
      ],
      query: '72 fahrenheit in celsius',
      first: 'metricly/convert',
    },
    {
      spelled: 'a translation',
      tag: 'textlanguage',
      category: 'communication',
      endpoints: [
        ['voxly', 'speak', 'Say a text aloud in a natural voice.'],
        ['lingofy', 'translate', 'Translate text between 100 languages.'],
      ],
      query: "how do I say 'your order has shipped' in japanese? it needs to sound polite",
      first: 'lingofy/translate',
    },
    {
      spelled: 'a classification',
      tag: 'textclasses',
      category: 'ai_ml',
      endpoints: [
        ['billwise', 'invoices', 'Billing: list invoices and refunds of a customer.'],
        ['labelwise', 'classify', 'Classify a text into categories you define.'],
      ],
      query: 'sort incoming support tickets into billing / bug / feature request',
      first: 'labelwise/classify',
    },
    {
      spelled: 'a rewrite',
      tag: 'texttone',
      category: 'ai_ml',
      endpoints: [
        ['mailwise', 'send', 'Send an e-mail to your boss, a client or a landlord.'],
        ['restyle', 'rewrite', 'Rewrite a text in another tone.'],
      ],
      query: "make this sound more professional before I send it to my boss: 'hey cant make it tmrw'",
      first: 'restyle/rewrite',
    },
    {
      spelled: 'a stock quote',
      tag: 'stockquote',
      category: 'data_intelligence',
      endpoints: [
        ['coinly', 'price', 'Live price of a coin or token in USD, with the 24h change.'],
        ['equitix', 'quote', 'Real-time stock quote: last trade, bid and ask for a US equity.'],
      ],
      query: 'AAPL price now',
      first: 'equitix/quote',
    },
    {
      spelled: 'a VIN',
      tag: 'selfnamed',
      category: 'data_intelligence',
      endpoints: [
        ['hashsmith', 'checksum', 'Checksum of a string: CRC32, MD5 or SHA-256 of the input.'],
        ['autodex', 'decode', 'Decode a VIN: make, model, year and engine of the vehicle.'],
      ],
      query: '1HGCM82633A004352',
      first: 'autodex/decode',
    },
    {
      spelled: 'a short link',
      tag: 'shortlink',
      category: 'utility',
      endpoints: [
        ['pagegrab', 'scrape', 'Scrape a web page: the text and links of any URL.'],
        ['linkpeek', 'unshorten', 'Expand a short URL: follow its redirects to the final destination.'],
      ],
      query: 'where does bit.ly/3xYz actually go',
      first: 'linkpeek/unshorten',
    },
    {
      spelled: 'a time zone conversion',
      tag: 'tzconvert',
      category: 'utility',
      endpoints: [
        ['clockly', 'now', 'Current local time in a city or time zone.'],
        ['zoneshift', 'convert', 'Convert a date and time from one time zone to another.'],
      ],
      query: 'if it is 3pm in New York, what time is it in Tokyo?',
      first: 'zoneshift/convert',
    },
    {
      spelled: 'a coin price',
      tag: 'coinprice',
      category: 'blockchain',
      endpoints: [
        ['solview', 'balance', 'SOL balance of a Solana wallet, priced in USD or EUR.'],
        ['coinspot', 'spot', 'Spot price of a crypto coin by symbol (BTC, ETH) in USD or EUR.'],
      ],
      query: 'SOL price in EUR',
      first: 'coinspot/spot',
    },
    {
      spelled: 'a wallet balance',
      tag: 'walletbalance',
      category: 'blockchain',
      endpoints: [
        ['gasmeter', 'eth', 'ETH gas price now: base fee and priority fee in gwei.'],
        ['walletview', 'balance', 'Wallet balance: native and token balances of an address.'],
      ],
      query: 'how much ETH does 0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045 hold',
      first: 'walletview/balance',
    },
    {
      spelled: 'an extraction',
      tag: 'jsonfields',
      category: 'ai_ml',
      endpoints: [
        ['mailcourier', 'send', 'Send an e-mail: subject, body and recipients, with invoice attachments.'],
        ['fieldpull', 'extract', 'Extract structured data from text as JSON that matches your schema.'],
      ],
      query:
        "Turn this email into JSON {invoice_number, amount, due_date}: 'Hi team, invoice INV-2291 for $4,310.00 is due on 30 September.'",
      first: 'fieldpull/extract',
    },
    {
      spelled: 'a moderation',
      tag: 'abusetext',
      category: 'ai_ml',
      endpoints: [
        ['forumly', 'comments', 'Forum comments: list, post and block comments on a thread.'],
        ['safeword', 'moderate', 'Content moderation: toxicity, hate and harassment scores for a text.'],
      ],
      query: "should this forum comment be blocked? 'you people are idiots'",
      first: 'safeword/moderate',
    },
    {
      spelled: 'an IP geolocation',
      tag: 'iplocation',
      category: 'data_intelligence',
      endpoints: [
        ['placefind', 'where', 'Where is a place: find a city, a country or a landmark by name.'],
        ['ipmap', 'locate', 'IP geolocation: country, city and ISP of an IP address.'],
      ],
      query: 'where is 8.8.8.8',
      first: 'ipmap/locate',
    },
    {
      spelled: 'an entity recognition',
      tag: 'entitynames',
      category: 'ai_ml',
      endpoints: [
        [
          'firmfind',
          'search',
          'Company search: find a company or a person by name, with its places of business.',
        ],
        ['nerly', 'entities', 'Named entity recognition: extract entities from a text.'],
      ],
      query:
        "pull out every person, company and place mentioned in: 'Satya Nadella met Rishi Sunak in London'",
      first: 'nerly/entities',
    },
    {
      spelled: 'an image generation',
      tag: 'imagelook',
      category: 'ai_ml',
      endpoints: [
        ['snowcast', 'today', 'Daily forecast: snow, rain and temperature for a city.'],
        ['pixelmint', 'generate', 'Text-to-image: generate an image from a prompt, in any art style.'],
      ],
      query: 'photorealistic picture of a red fox in fresh snow at dusk, 16:9',
      first: 'pixelmint/generate',
    },
    {
      spelled: 'a historical coin price',
      tag: 'pastcoin',
      category: 'blockchain',
      endpoints: [
        ['coinnow', 'price', 'Coin price: what bitcoin or ether is worth now in USD, with its market cap.'],
        ['coinpast', 'price-at', 'Historical crypto price of a coin on a past date.'],
      ],
      query: 'what was bitcoin worth on 10 nov 2021',
      first: 'coinpast/price-at',
    },
    {
      spelled: 'a summary',
      tag: 'boileddown',
      category: 'ai_ml',
      endpoints: [
        ['clauseiq', 'review', 'Contract review: flag risky clauses in a supplier contract or agreement.'],
        ['briefly', 'summarize', 'Summarize a long text into a short summary.'],
      ],
      query: 'tl;dr this 8-page supplier contract into 5 bullet points',
      first: 'briefly/summarize',
    },
    {
      spelled: 'a code generation',
      tag: 'codeasked',
      category: 'ai_ml',
      endpoints: [
        ['crmly', 'customer', 'CRM: look up a customer record and its revenue by customer id.'],
        [
          'codesmith',
          'generate',
          'Code generation: generate code or a SQL query from a description of what it should do.',
        ],
      ],
      query: 'give me a Postgres query for the top 5 customers by revenue',
      first: 'codesmith/generate',
    },
    {
      spelled: 'a currency conversion',
      tag: 'moneyin',
      category: 'data_intelligence',
      endpoints: [
        ['yenwatch', 'index', 'Japan market index: the Nikkei in JPY and the EUR price of Japanese stocks.'],
        ['fxpoint', 'convert', 'Currency conversion of an amount at the exchange rate of today.'],
      ],
      query: '250 EUR in JPY',
      first: 'fxpoint/convert',
    },
    {
      spelled: 'a bulk e-mail verification',
      tag: 'listclean',
      category: 'communication',
      endpoints: [
        ['blastmail', 'campaign', 'Send an e-mail campaign or newsletter to a list of contacts.'],
        ['mailproof', 'bulk', 'Bulk email verification: verify a list of addresses.'],
      ],
      query:
        'We are about to send a campaign to 40k contacts. Remove the dead and fake addresses from the list first.',
      first: 'mailproof/bulk',
    },
    {
      spelled: 'a PII redaction',
      tag: 'piiout',
      category: 'ai_ml',
      endpoints: [
        ['ticketdesk', 'tickets', 'Support desk: create and list customer support tickets.'],
        ['privguard', 'redact', 'Redact personal data from a text before it is stored.'],
      ],
      query: 'scrub emails and phone numbers out of support tickets before they go to an llm',
      first: 'privguard/redact',
    },
    {
      spelled: 'an e-mail verification',
      tag: 'realinbox',
      category: 'communication',
      endpoints: [
        ['mailsend', 'send', 'Send an email: a contract, an invoice or a newsletter to an address.'],
        ['mailcheck', 'verify', 'Email verification: verify an address.'],
      ],
      query:
        'About to send a contract to kevin@gmial.com. Is that address actually deliverable, or is it a typo?',
      first: 'mailcheck/verify',
    },
    {
      spelled: 'a web search',
      tag: 'serpasked',
      category: 'data_intelligence',
      endpoints: [
        ['bookly', 'expenses', 'Bookkeeping: track the expenses and invoices of freelancers.'],
        ['serpy', 'search', 'Web search API: SERP results as JSON.'],
      ],
      query: 'top google results for best bookkeeping software for freelancers uk',
      first: 'serpy/search',
    },
    {
      spelled: 'a transaction status',
      tag: 'wentthrough',
      category: 'blockchain',
      endpoints: [
        ['billpad', 'paid', 'Invoices: see whether a customer has paid.'],
        ['txtrail', 'status', 'Transaction status: confirmations of a chain transaction.'],
      ],
      query:
        'Customer swears they paid. Has 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 gone through?',
      first: 'txtrail/status',
    },
    {
      spelled: 'an uptime check',
      tag: 'sitedown',
      category: 'utility',
      endpoints: [
        ['justmesite', 'build', 'Site builder: make mysite.com or any site.'],
        ['pingly', 'check', 'Website uptime check from many regions.'],
      ],
      query: 'is mysite.com down or is it just me',
      first: 'pingly/check',
    },
    {
      spelled: 'the current weather',
      tag: 'weathernow',
      category: 'data_intelligence',
      endpoints: [
        ['daysahead', 'forecast', 'Weather forecast by day for the days ahead: rain and sun.'],
        ['nowsky', 'current', 'Current weather conditions at a place: temperature, wind, sky.'],
      ],
      query: 'is it raining in Oslo right now?',
      first: 'nowsky/current',
    },
    {
      spelled: 'an image caption',
      tag: 'alttext',
      category: 'ai_ml',
      endpoints: [
        ['imgmaker', 'generate', 'Generate images for your website, products and uploads.'],
        ['seeword', 'caption', 'Image caption: describe an image in a sentence.'],
      ],
      query: 'auto alt text for user uploaded imgs on our website (a11y)',
      first: 'seeword/caption',
    },
    {
      spelled: 'an ENS resolution',
      tag: 'ensname',
      category: 'blockchain',
      endpoints: [
        ['nodecall', 'eth-call', 'Ethereum node: call a contract on chain and get the 0x result.'],
        ['namelink', 'resolve', 'ENS: resolve a name to its address.'],
      ],
      query: 'vitalik.eth -> 0x?',
      first: 'namelink/resolve',
    },
    {
      spelled: 'an object count',
      tag: 'howmany',
      category: 'ai_ml',
      endpoints: [
        ['queuely', 'schedule', 'Staff scheduling for people standing in busy lunchtime queues.'],
        ['seenet', 'detect', 'Detect and count objects in an image.'],
      ],
      query: 'How many people are standing in this photo of our lunchtime queue?',
      first: 'seenet/detect',
    },
    {
      spelled: 'a Bitcoin balance',
      tag: 'satsheld',
      category: 'blockchain',
      endpoints: [
        ['feewatch', 'fees', 'Bitcoin fee estimates: how many sats per vbyte are in the mempool now.'],
        ['satscan', 'address', 'Bitcoin address balance.'],
      ],
      query: 'how many sats are in bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?',
      first: 'satscan/address',
    },
  ] as const)(
    '$spelled: "$query" is answered by $first',
    async ({ tag, category, endpoints, query, first }) => {
      expect(await firstAmong(u, tag, category, endpoints, query)).toBe(first);
    },
  );
});

describe('meta.match_quality', () => {
  it('is good when the first result does what was asked, names of places not counting against it', async () => {
    for (const query of ['weather forecast for the next days', 'current weather in Nairobi', 'send an SMS']) {
      const body = await discoverOk(t, { query });
      const meta = body.meta as Meta;
      expect(meta.match_quality, query).toBe('good');
      expect(meta.match_strength).toBeGreaterThanOrEqual(WEAK_MATCH_BELOW);
      expect(meta.match_strength).toBeLessThanOrEqual(1);
    }
  });

  it('is weak (or none) when nothing in the catalogue does what was asked', async () => {
    for (const query of ['start my robot vacuum', 'apply for a mortgage pre-approval']) {
      const body = await discoverOk(t, { query });
      const meta = body.meta as Meta;
      expect(['weak', 'none'], query).toContain(meta.match_quality);
      expect(meta.match_strength).toBeLessThan(WEAK_MATCH_BELOW);
    }
  });

  it('judges the results that passed the filters, not the catalogue', async () => {
    const open = await discoverOk(t, { query: 'send a text message to a phone' });
    expect(keysOf(open)[0]).toBe('courier/send-sms');
    expect((open.meta as Meta).match_quality).toBe('good');
    const filtered = await discoverOk(t, {
      query: 'send a text message to a phone',
      filters: { category: 'blockchain' },
    });
    expect(keysOf(filtered)).not.toContain('courier/send-sms');
    expect(['weak', 'none']).toContain((filtered.meta as Meta).match_quality);
  });

  it('is absent without a query (filters only)', async () => {
    const body = await discoverOk(t, { filters: { category: 'utility' } });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.meta).not.toHaveProperty('match_quality');
    expect(body.meta).not.toHaveProperty('match_strength');
  });

  it('is served the same from the cache', async () => {
    const first = (await discoverOk(t, { query: 'start my robot vacuum' })).meta as Meta;
    const again = (await discoverOk(t, { query: 'start my robot vacuum' })).meta as Meta;
    expect(again.match_quality).toBe(first.match_quality);
    expect(again.match_strength).toBe(first.match_strength);
  });
});

describe('a quoted payload in the query', () => {
  it.each([
    [
      "text my wife 'the weather forecast says heavy rain tomorrow, bring the kids inside'",
      'courier/send-sms',
    ],
    ["translate 'what is my wallet balance on ethereum' into Spanish", 'lingua/translate'],
    ['email the team: "the QR codes for the launch are ready"', 'courier/send-email'],
  ])('is what is to be processed, not what is asked for: "%s" → %s', async (query, expected) => {
    expect(keysOf(await discoverOk(t, { query }))[0]).toBe(expected);
  });

  it('is left out of the query as it is read; apostrophes are not quotes', () => {
    expect(withoutQuotedText("similarity between 'car won't start' and 'engine is dead'")).toBe(
      'similarity between and',
    );
    expect(withoutQuotedText('articles mentioning "Silicon Valley Bank" from March')).toBe(
      'articles mentioning from March',
    );
    expect(withoutQuotedText("I've got my customers' addresses")).toBe("I've got my customers' addresses");
    // Nothing else asked: the quoted text is the query.
    expect(withoutQuotedText("'weather forecast'")).toBe("'weather forecast'");
  });
});

describe('the ask a query starts with', () => {
  const endpoint: IndexedEndpoint = {
    providerId: 'aero',
    providerName: 'Aero',
    providerDescription: 'Aviation weather.',
    category: 'data_intelligence',
    providerTags: [],
    slug: 'flight-conditions',
    method: 'GET',
    description: 'Flight conditions at an airport: visibility, ceiling and wind for pilots.',
    tags: ['aviation', 'airport'],
    parameters: {},
    responseSchema: null,
    priceCredits: 1000n,
  };
  const index = buildSearchIndex([endpoint], loadWordVectors());

  it('counts against the match when the endpoint lacks it: "book a flight" is not what a weather report does', () => {
    const booked = matchEvidence(index, 'book a flight from Madrid', 0);
    // At most a trace of credit from a word of similar meaning.
    expect(booked.lead).toBeLessThan(0.05);
    const plain = matchStrength(0.5, { ...booked, lead: 1 });
    expect(matchStrength(0.5, booked)).toBeCloseTo(plain * (LEAD_FLOOR + (1 - LEAD_FLOOR) * booked.lead), 10);
    expect(matchStrength(0.5, booked)).toBeLessThan(plain / 2);
  });

  it('is not judged after a question word, a value or a request word, and counts fully when covered', () => {
    expect(matchEvidence(index, 'how windy is it at the airport', 0).lead).toBe(1);
    expect(matchEvidence(index, 'flight conditions at Madrid airport', 0).lead).toBe(1);
    // A value first (a ticker, a name) is not an ask.
    expect(matchEvidence(index, 'LEMD flight conditions', 0).lead).toBe(1);
    // Nor is a request for information that any endpoint answers, though this one never says "find".
    expect(matchEvidence(index, 'find the visibility at Madrid airport', 0).lead).toBe(1);
  });
});

describe('an action asked of a read-only endpoint', () => {
  const requests = [
    'Book me a seat on LH401',
    'Could you please order a pizza to room 412',
    'I need to register brightloaf.com for two years',
    'Point the A record of shop.example.com at 203.0.113.7',
    'The weather is fine. Place a market order for 10 TSLA',
    'the price is fine; place a market order for 10 TSLA',
    'we checked the stock, please send 2 units to depot 4',
  ];
  const questions = [
    'how much USDC would I get if I swapped 5 WETH',
    'which seats are free on LH401',
    'find a post office near me',
  ];

  it('tells a request for an action from a question, wherever the request verb stands', () => {
    expect(requests.filter((query) => !asksForAction(query))).toEqual([]);
    expect(questions.filter(asksForAction)).toEqual([]);
  });

  it('keeps a share of the strength when the first result can only look things up (GET)', async () => {
    // Two providers alike but for the method of their one endpoint.
    for (const [id, method] of [
      ['seatsa', 'GET'],
      ['seatsb', 'POST'],
    ] as const)
      await createProvider(t, {
        id,
        category: 'data_intelligence',
        endpoints: [
          {
            slug: 'seat-map',
            method,
            description: 'Seat map of a flight: which seats are free to book, by cabin and row.',
            tags: [id],
            parameters: { flight: { type: 'string', required: true, description: 'Flight number' } },
          },
        ],
      });
    // Each asked of its own provider alone (filters narrow the catalogue before matching).
    const strength = async (query: string, method: string) =>
      (await discoverOk(t, { query, filters: { method, tags: [method === 'GET' ? 'seatsa' : 'seatsb'] } }))
        .meta as Meta;
    const asked = 'book a seat on flight LH401';
    const [read, act] = [await strength(asked, 'GET'), await strength(asked, 'POST')];
    expect(act.match_strength).toBeGreaterThan(0.2);
    // Close, not equal: weakened, the read-only match falls below the sentence encoder's gate and is
    // ranked with meaning fused in, the other by its words alone.
    expect(read.match_strength).toBeCloseTo((act.match_strength as number) * READ_ONLY_FOR_ACTION, 1);
    expect(read.match_strength).toBeLessThan((act.match_strength as number) / 2);
    // A question is answered as well by either: nothing is asked to happen.
    const question = 'which seats are free on flight LH401';
    expect((await strength(question, 'GET')).match_strength).toBe(
      (await strength(question, 'POST')).match_strength,
    );
  });
});

describe('meaning that stands out from the catalogue (twentieth round)', () => {
  it('scales the strength when the closest endpoint in meaning hardly stands out, and only when encoded', () => {
    const index = buildSearchIndex([indexedEndpoint('track')], loadWordVectors());
    const evidence = matchEvidence(index, 'track', 0);
    const whole = matchStrength(0.6, evidence);
    expect(whole).toBeGreaterThan(0);
    expect(matchStrength(0.6, evidence, undefined)).toBe(whole);
    expect(matchStrength(0.6, evidence, STAND_OUT_FULL)).toBe(whole);
    expect(matchStrength(0.6, evidence, 0.45)).toBe(whole);
    expect(matchStrength(0.6, evidence, STAND_OUT_FULL / 3)).toBeCloseTo(whole / 3, 10);
    expect(matchStrength(0.6, evidence, -0.05)).toBe(0);
  });

  it('flags a query a few words tie to an endpoint that means something else; real answers stay good', async () => {
    await createProvider(t, {
      id: 'flightwatch',
      category: 'data_intelligence',
      endpoints: [
        {
          slug: 'flight-status',
          method: 'GET',
          description: 'Track a flight: live status, departure and arrival times, delays and gate.',
          parameters: {
            flight: { type: 'string', required: true, description: 'Flight number, e.g. LH400' },
          },
        },
      ],
    });
    // "live" and "today" are all they share with a flight tracker and a weather outlook.
    for (const query of ['live score arsenal vs chelsea', 'what is my horoscope for scorpio today']) {
      const meta = (await discoverOk(t, { query })).meta as Meta;
      expect(meta.match_quality, query).toBe('weak');
    }
    for (const [query, first] of [
      ['track flight LH400, when will it arrive?', 'flightwatch/flight-status'],
      ['check the weather at the airport', 'skycast/conditions'],
      ['email the forecast to bob@example.com', 'courier/send-email'],
      ['translate this to french', 'lingua/translate'],
    ]) {
      const body = await discoverOk(t, { query });
      expect(keysOf(body)[0], query).toBe(first);
      expect((body.meta as Meta).match_quality, query).toBe('good');
    }
  });
});

describe('valueWords', () => {
  it('takes names, tickers, numbers and domains as values, not as asks', () => {
    expect([...valueWords('NVDA share price on 1 March at acme.com for Claude')].sort()).toEqual(
      ['1', 'acme', 'claude', 'com', 'march', 'nvda'].sort(),
    );
    expect([...valueWords('Weather forecast')]).toEqual([]);
  });
});
