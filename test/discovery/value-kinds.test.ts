import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotedValueKinds } from '../../src/modules/discovery/ranking/as-read.js';
import {
  acceptedKinds,
  isQuotedValue,
  VALUE_KIND_WEIGHT,
  valueKindOrder,
  valueKindsOf,
} from '../../src/modules/discovery/ranking/value-kinds.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, indexedEndpoint, keysOf } from './helpers.js';

/** One required string parameter. */
const params = (name: string, description: string) => ({
  [name]: { type: 'string', required: true, description },
});
/** The kinds a one-parameter endpoint takes. */
const kindsOf = (name: string, description = '') => [
  ...acceptedKinds(indexedEndpoint(name, { parameters: params(name, description) })),
];

describe('valueKindsOf', () => {
  it('tells each kind of value by its form, wherever it stands in the sentence', () => {
    expect(valueKindsOf('a card payment came from 45.133.1.22, a proxy?')).toEqual(['ip']);
    expect(valueKindsOf('is jane.doe@contoso.com a real mailbox')).toEqual(['email']);
    expect(valueKindsOf('summarise https://example.com/post/1 for me')).toEqual(['url']);
    expect(valueKindsOf('where does bit.ly/3xYz9Qp lead')).toEqual(['url']);
    expect(valueKindsOf('MX records of acme-widgets.io')).toEqual(['domain']);
    expect(valueKindsOf('is 0x7F367cC41522cE07553e823bf3be79A889DEbe1B sanctioned?')).toEqual(['account']);
    expect(
      valueKindsOf('is 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 confirmed'),
    ).toEqual(['transaction']);
    expect(valueKindsOf('mail bob@acme.com the report on example.org and 10.0.0.1')).toEqual([
      'email',
      'domain',
      'ip',
    ]);
  });

  it('finds none in words, names, plain numbers, times of day and code file names', () => {
    for (const query of [
      'weather in St. Louis tomorrow',
      'U.S. gdp growth',
      'split 1,250.50 between 3, 4 people',
      'buy 10 shares of tsla',
      'pm2.5 in delhi at 3 pm today',
      'remind them at 9:30 tomorrow',
      'version 1.2.3 of the sdk',
      'lint app.ts and index.html',
      'bundle it with next.js',
    ])
      expect(valueKindsOf(query), query).toEqual([]);
  });

  it('reads a phone number and an amount across tokens (the service reads the query in lower case)', () => {
    const cases: Array<[string, string[]]> = [
      ["text +44 7700 900123: 'your table is ready'", ['phone']],
      ['text +447700900123, then check the code', ['phone']],
      ['ring (415) 555-0100 and read this out', ['phone']],
      ['how much usdc would i get for 2.5 eth on arbitrum', ['amount', 'tokens']],
      ['how many japanese yen is 2,500 swiss francs worth today?', ['amount']],
      ['convert 250.50 chf to jpy', ['amount']],
      ['send $20 to bob@acme.com', ['email', 'amount']],
    ];
    for (const [query, kinds] of cases) expect(valueKindsOf(query), query).toEqual(kinds);
  });

  it('reads a calendar date in the forms people write one (fourteenth round)', () => {
    for (const query of [
      'holidays between 2024-03-01 and 2024-03-15',
      'pm2.5 in delhi on 5 november 2023 at 3 pm',
      'eur/jpy fixing for 28.02.2023',
      'was it raining in chicago on 3/14/23',
      'high temperature in chicago on july 13, 1995',
      'eth price 10 nov 2021',
      'the 14th of march',
      'historical rainfall munich july 2019',
    ])
      expect(valueKindsOf(query), query).toEqual(['date']);
    expect(valueKindsOf('convert 250.50 chf to jpy on 2024-03-01')).toEqual(['amount', 'date']);
  });
});

describe('files (sixteenth round)', () => {
  it("reads what a file holds from its name's ending, in a URL or alone", () => {
    expect(valueKindsOf('pull the text out of https://files.example.org/scan-0042.png?v=2')).toEqual([
      'url',
      'image',
    ]);
    expect(valueKindsOf('text of whiteboard.jpg')).toEqual(['image']);
    expect(valueKindsOf('transcribe https://x.io/vm/771.wav, then summarise q3.pdf')).toEqual([
      'url',
      'audio',
      'document',
    ]);
    expect(valueKindsOf('convert clip_final.mov to mp4')).toEqual(['video']);
    expect(valueKindsOf('is song.flac a domain?')).toEqual(['audio']);
  });

  it('knows the parameters that take a file or its link, and of what, not what an endpoint returns', () => {
    const kinds = (name: string, description: string) => kindsOf(name, description).sort();
    expect(kinds('image_url', '')).toEqual(['domain', 'image', 'url']);
    expect(kinds('media_url', 'Audio or video')).toEqual(['audio', 'domain', 'url', 'video']);
    expect(kinds('file', 'The PDF to sign')).toEqual(['document']);
    // A page's URL is not an image's; an output format is not an input.
    expect(kinds('url', 'Page to screenshot')).toEqual(['domain', 'url']);
    expect(kinds('format', 'mp3 | wav | ogg')).toEqual([]);
    expect(kinds('duration_s', 'Video length')).toEqual([]);
  });
});

describe('quoted values (sixteenth round)', () => {
  it('reads the kind of a quoted span that is one value: a token, or a short span without a sentence', () => {
    expect(quotedValueKinds("does 'r.okafor@lagosfreight.ng' exist?")).toEqual(['email']);
    expect(quotedValueKinds("geocode '221B Baker Street, London NW1 6XE' to lat/lng")).toEqual(['street']);
    expect(
      quotedValueKinds('company info for "notion.so" and "0x71C7656EC7ab88b098defB751B7401B5f6d8976F"'),
    ).toEqual(['domain', 'account']);
    expect(quotedValueKinds("call '+44 7700 900123' now")).toEqual(['phone']);
    expect(isQuotedValue('1600 Amphitheatre Pkwy, Mountain View, CA 94043')).toBe(true);
  });

  it('reads a quoted message that holds a value as a text, not as its values (seventeenth round)', () => {
    expect(
      quotedValueKinds("translate 'Hi Dana, the invoice from 2 May is still unpaid.' to German"),
    ).toEqual(['text']);
    expect(quotedValueKinds("summarise 'Meet me at 10 Downing Street at noon'")).toEqual(['text']);
    expect(quotedValueKinds("translate 'check my balance' into Spanish")).toEqual(['text']);
    expect(quotedValueKinds('translate check my balance into Spanish')).toEqual([]);
    expect(isQuotedValue('transfer 500 EUR to DE89 3704 0044 0532 0130 00')).toBe(false);
  });
});

describe('coordinates (fifteenth round)', () => {
  it('reads a latitude and longitude pair in decimal degrees', () => {
    for (const query of [
      'street address for 40.748440,-73.985664',
      'hike near chamonix (45.92, 6.87) this weekend',
      'gps -1.2921, 36.8219 in nairobi.',
      'tz for -33.8688,151.2093',
    ])
      expect(valueKindsOf(query), query).toEqual(['coordinates']);
  });
});

describe('street addresses (fifteenth round)', () => {
  it('reads a house number with its street, in the orders people write them', () => {
    for (const query of [
      'lat/lng for 1600 amphitheatre pkwy, mountain view ca',
      'lat/long for 10 downing street, london',
      'new addr 14 elm st springfield',
      'lat/lng for hauptstrasse 5, 69117 heidelberg',
      'hotel near 12 rue de rivoli',
      'calle mayor 12 madrid',
    ])
      expect(valueKindsOf(query), query).toEqual(['street']);
  });

  it('is not fooled by a number before a word that can shorten a street', () => {
    for (const query of [
      'top 10 st louis restaurants',
      'i have 2 dr appointments',
      'the 3 best way to',
      '5 square meters',
    ])
      expect(valueKindsOf(query), query).toEqual([]);
  });
});

describe('acceptedKinds', () => {
  it("reads them from the parameters' names and descriptions", () => {
    expect([...acceptedKinds(indexedEndpoint('a', { parameters: params('ip', 'IP address') }))]).toEqual([
      'ip',
    ]);
    expect(
      [...acceptedKinds(indexedEndpoint('b', { parameters: params('target', 'Page URL') }))].sort(),
    ).toEqual(['domain', 'url']);
    expect([...acceptedKinds(indexedEndpoint('c', { parameters: params('address', '0x address') }))]).toEqual(
      ['account'],
    );
    expect([...acceptedKinds(indexedEndpoint('d', { parameters: params('hash', 'Tx hash') }))]).toEqual([
      'transaction',
    ]);
    expect([
      ...acceptedKinds(indexedEndpoint('e', { parameters: params('address', 'Street address') })),
    ]).toEqual(['street']);
  });
  it('splits identifiers as the index does: camelCase and snake_case names carry their words', () => {
    expect(kindsOf('walletAddress')).toEqual(['account']);
    expect(kindsOf('clientIp')).toEqual(['ip']);
    expect(kindsOf('tx_hash')).toEqual(['transaction']);
    expect(kindsOf('recipient')).toEqual([]);
  });
  it('knows the parameters that take a phone number or an amount', () => {
    expect(kindsOf('to', 'Recipient number in E.164 format')).toEqual(['phone']);
    expect(kindsOf('msisdn', '')).toEqual(['phone']);
    expect(kindsOf('amountIn', 'Tokens to sell')).toEqual(['amount', 'tokens']);
    expect(kindsOf('qty', '')).toEqual(['amount']);
    expect(kindsOf('count', 'How many results')).toEqual([]);
  });
  it('knows the parameters that take coordinates, and that a place name is not one', () => {
    expect(kindsOf('lat', 'Latitude')).toEqual(['coordinates']);
    expect(kindsOf('latLng', '')).toEqual(['coordinates']);
    expect(kindsOf('point', 'Coordinates as lat,lon')).toEqual(['coordinates']);
    expect(kindsOf('city', 'City name')).toEqual([]);
  });
  it("knows the parameters that take a street address, and an address of another kind from a street's", () => {
    expect(kindsOf('address', 'Street address')).toEqual(['street']);
    expect(kindsOf('addr', '')).toEqual(['street']);
    expect(kindsOf('where', 'Full postal address or place name')).toEqual(['street']);
    expect(kindsOf('address', 'Wallet address')).toEqual(['account']);
    expect(kindsOf('to', 'Recipient address (0x…)')).toEqual(['account']);
    expect(kindsOf('address', 'E-mail address to verify')).toEqual(['email']);
  });
  it('knows the parameters that take a date, and that a time zone is not one', () => {
    expect(kindsOf('observationDate', 'Past day, YYYY-MM-DD')).toEqual(['date']);
    expect(kindsOf('from', 'Start of the range, ISO 8601')).toEqual(['date']);
    expect(kindsOf('ts', 'Unix timestamp')).toEqual(['date']);
    expect(kindsOf('tz', 'IANA time zone, e.g. Europe/Berlin')).toEqual([]);
    expect(kindsOf('days', 'Number of forecast days')).toEqual([]);
  });
});

describe('valueKindOrder', () => {
  const endpoints = [
    indexedEndpoint('by-name', {
      parameters: params('domain', 'Domain'),
    }),
    indexedEndpoint('by-ip', {
      parameters: params('ip', 'IP address'),
    }),
  ];
  const hits = { slots: Int32Array.from([0, 1]), relevance: Float64Array.from([0.62, 0.58]) };

  it('moves the endpoint that takes the value above a slightly stronger one that does not', () => {
    const order = valueKindOrder(hits, ['ip'], (slot) => endpoints[slot]) as Float64Array;
    expect(order[1]).toBeCloseTo(0.58 + VALUE_KIND_WEIGHT, 12);
    expect(order[0]).toBeCloseTo(0.62, 12);
    expect(order[1]).toBeGreaterThan(order[0] as number);
    // The relevance (the reported score, what match_strength reads) is not touched.
    expect([...hits.relevance]).toEqual([0.62, 0.58]);
  });

  it('starts from the order late interaction gave, and leaves a query without values alone', () => {
    const reordered = { ...hits, order: Float64Array.from([0.5, 0.7]) };
    const order = valueKindOrder(reordered, ['domain'], (slot) => endpoints[slot]) as Float64Array;
    expect(order[0]).toBeCloseTo(0.5 + VALUE_KIND_WEIGHT, 12);
    expect(order[1]).toBeCloseTo(0.7, 12);
    expect(valueKindOrder(hits, [], (slot) => endpoints[slot])).toBeUndefined();
  });

  it("moves a link to an image toward the endpoint that takes an image's link, over one that takes any page's", () => {
    const readers = [
      indexedEndpoint('page-text', {
        parameters: { url: { type: 'string', required: true, description: 'Page URL' } },
      }),
      indexedEndpoint('image-text', {
        parameters: { image_url: { type: 'string', required: true, description: '' } },
      }),
    ];
    const kinds = valueKindsOf('pull the text out of https://files.example.org/scan-0042.png');
    const order = valueKindOrder(hits, kinds, (slot) => readers[slot]) as Float64Array;
    expect(order[1]).toBeGreaterThan(order[0] as number);
    // A page's link is taken by both alike: the words decide.
    const byPage = valueKindOrder(
      hits,
      valueKindsOf('text of https://example.org/about'),
      (slot) => readers[slot],
    );
    expect((byPage as Float64Array)[0]).toBeGreaterThan((byPage as Float64Array)[1] as number);
  });

  it('gives a share for a query holding values of two kinds', () => {
    const order = valueKindOrder(hits, ['ip', 'email'], (slot) => endpoints[slot]) as Float64Array;
    expect(order[1]).toBeCloseTo(0.58 + VALUE_KIND_WEIGHT / 2, 12);
  });
});

describe('ENS names (seventeenth round)', () => {
  it("reads a name under .eth as a wallet's name, not a web domain, quoted or not", () => {
    expect(valueKindsOf('what address does vitalik.eth point to?')).toEqual(['ens']);
    expect(valueKindsOf('who owns vitalik.eth')).not.toContain('domain');
    expect(valueKindsOf('resolve payroll.acme-dao.eth to a 0x address')).toEqual(['ens']);
    expect(valueKindsOf('send 0.1 eth to my wallet')).not.toContain('ens');
    expect(quotedValueKinds("the user typed 'nick.eth' as the recipient")).toEqual(['ens']);
  });

  it('knows the parameters that take one', () => {
    expect(kindsOf('ensName', '')).toEqual(['ens']);
    expect(kindsOf('name', 'Name to resolve, e.g. vitalik.eth')).toContain('ens');
    expect(kindsOf('domain', 'Web domain')).not.toContain('ens');
  });

  it('moves the endpoint that takes an ENS name above one that takes a place name', () => {
    const resolvers = [
      indexedEndpoint('places', {
        parameters: params('q', 'Place name'),
      }),
      indexedEndpoint('resolve', {
        parameters: params('name', 'ENS name'),
      }),
    ];
    const hits = { slots: Int32Array.from([0, 1]), relevance: Float64Array.from([0.62, 0.58]) };
    const order = valueKindOrder(
      hits,
      valueKindsOf('what address does vitalik.eth point to?'),
      (slot) => resolvers[slot],
    ) as Float64Array;
    expect(order[1]).toBeGreaterThan(order[0] as number);
  });
});

describe('a quoted text (seventeenth round)', () => {
  it('knows the parameters that take a text, and that a recording or an image is not one', () => {
    expect(kindsOf('text', 'The sentence to speak')).toEqual(['text']);
    expect(kindsOf('message', '')).toEqual(['text']);
    expect(kindsOf('q', 'Search keywords')).toEqual(['text']);
    expect(kindsOf('audio_url', 'Link to the recording')).not.toContain('text');
  });
});

describe('POST /v1/discover with a quoted text (seventeenth round)', () => {
  let t: TestApp;
  // Speech in both directions, described alike; the words favour the transcriber a little.
  beforeAll(async () => {
    t = await createTestApp({ env: DISCOVERY_TEST_ENV });
    await createProvider(t, {
      id: 'voxbox',
      category: 'ai_ml',
      endpoints: [
        {
          slug: 'speech-text',
          description: 'Speech and text: an mp3 voice clip and its spoken words, out loud.',
          parameters: { audio_url: { type: 'string', required: true, description: 'Recording URL' } },
        },
        {
          slug: 'text-speech',
          description: 'Speech and text: spoken words out loud, as an mp3 voice clip, made from text.',
          parameters: { text: { type: 'string', required: true, description: 'Words to say' } },
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('ranks first the endpoint that takes the text the caller holds in quotes', async () => {
    const byWords = await discoverOk(t, { query: 'spoken words out loud as an mp3 voice clip' });
    expect(keysOf(byWords).slice(0, 2)).toEqual(['voxbox/speech-text', 'voxbox/text-speech']);
    const byText = await discoverOk(t, {
      query: "spoken words out loud as an mp3 voice clip: 'Your order has shipped'",
    });
    expect(keysOf(byText).slice(0, 2)).toEqual(['voxbox/text-speech', 'voxbox/speech-text']);
    // Only the order moved: the words still favour the transcriber a little.
    const [first, second] = byText.results.map((r) => r.relevance_score);
    expect(first).toBeLessThan(second as number);
  });
});

describe('amounts of tokens (seventeenth round)', () => {
  it('reads an amount of a token as an amount of tokens too, and money as money only', () => {
    expect(valueKindsOf('how much usdc would i get for 2.5 eth on arbitrum')).toEqual(['amount', 'tokens']);
    expect(valueKindsOf('send 4,200 usdc to the treasury')).toEqual(['amount', 'tokens']);
    expect(valueKindsOf('how many yen is 2,500 swiss francs')).toEqual(['amount']);
    expect(valueKindsOf('convert $20 to eur')).toEqual(['amount']);
  });

  it('knows the endpoints that take an amount of tokens: on a chain, or speaking of tokens', () => {
    const amount = { amount: { type: 'number', required: true, description: 'Amount to convert' } };
    const kinds = (fields: Parameters<typeof indexedEndpoint>[1]) => [
      ...acceptedKinds(indexedEndpoint('x', fields)),
    ];
    expect(kinds({ category: 'blockchain', parameters: amount })).toEqual(['amount', 'tokens']);
    expect(kinds({ category: 'utility', parameters: amount })).toEqual(['amount']);
    // On a chain, but taking no amount (a gas price): not an amount of tokens either.
    expect(kinds({ category: 'blockchain', parameters: {} })).toEqual([]);
  });

  it('moves a swap quote above a currency converter for an amount of tokens', () => {
    const converters = [
      indexedEndpoint('fx-convert', {
        category: 'data_intelligence',
        parameters: { amount: { type: 'number', required: true, description: 'Amount to convert' } },
      }),
      indexedEndpoint('swap-quote', {
        category: 'blockchain',
        parameters: { amountIn: { type: 'string', required: true, description: 'Amount sold' } },
      }),
    ];
    const hits = { slots: Int32Array.from([0, 1]), relevance: Float64Array.from([0.62, 0.58]) };
    const byTokens = valueKindOrder(
      hits,
      valueKindsOf('how much usdc would i get for 2 eth'),
      (slot) => converters[slot],
    ) as Float64Array;
    expect(byTokens[1]).toBeGreaterThan(byTokens[0] as number);
    // An amount of money is taken by both alike: the words decide.
    const byMoney = valueKindOrder(
      hits,
      valueKindsOf('how many yen is 2,500 swiss francs'),
      (slot) => converters[slot],
    ) as Float64Array;
    expect(byMoney[0]).toBeGreaterThan(byMoney[1] as number);
  });
});

describe('POST /v1/discover with a value in the query', () => {
  let t: TestApp;
  // Two endpoints described alike, the one taking a domain a little closer to the query's words.
  beforeAll(async () => {
    t = await createTestApp({ env: DISCOVERY_TEST_ENV });
    await createProvider(t, {
      id: 'hostwatch',
      category: 'data_intelligence',
      endpoints: [
        {
          slug: 'check',
          description: 'Abuse reputation of a host: known spam source, open proxy or botnet node.',
          parameters: { domain: { type: 'string', required: true, description: 'Domain name' } },
        },
        {
          slug: 'lookup',
          description: 'Abuse reputation of a host: spam source, open proxy or botnet node.',
          parameters: params('ip', 'IP address'),
        },
      ],
    });
    await createProvider(t, {
      id: 'pooldesk',
      category: 'blockchain',
      endpoints: [
        {
          slug: 'rate',
          description: 'Exchange rate of a token pair on a decentralised exchange pool, with its liquidity.',
          parameters: { pair: { type: 'string', required: true, description: 'Token pair, e.g. ETH/USDC' } },
        },
        {
          slug: 'trade',
          description: 'Exchange rate of a token pair on a decentralised exchange pool for a trade.',
          parameters: {
            pair: { type: 'string', required: true, description: 'Token pair' },
            amountIn: { type: 'number', required: true, description: 'Tokens sold' },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('ranks first the endpoint that takes what the caller holds, over one its words favour a little', async () => {
    const byWords = await discoverOk(t, { query: 'is this host a known spam source?' });
    expect(keysOf(byWords).slice(0, 2)).toEqual(['hostwatch/check', 'hostwatch/lookup']);
    const byIp = await discoverOk(t, { query: 'is 45.133.1.22 a known spam source?' });
    // Its relevance (how well its words and meaning match) is still the lower one: only the order moved.
    const [first, second] = byIp.results.map((r) => r.relevance_score);
    expect(first).toBeLessThan(second as number);
    expect(keysOf(byIp).slice(0, 2)).toEqual(['hostwatch/lookup', 'hostwatch/check']);
    const byDomain = await discoverOk(t, { query: 'is spamhaus-test.org a known spam source?' });
    expect(keysOf(byDomain).slice(0, 2)).toEqual(['hostwatch/check', 'hostwatch/lookup']);
  });

  it("reads a quoted value's kind, and caches the order by it (sixteenth round)", async () => {
    // Its words favour the endpoint that takes an IP address a little.
    const byWords = await discoverOk(t, { query: 'spam source or botnet node?' });
    expect(keysOf(byWords).slice(0, 2)).toEqual(['hostwatch/lookup', 'hostwatch/check']);
    // Both below read as the query above (a quoted span's words are left out): only the kinds differ.
    const byDomain = await discoverOk(t, { query: "spam source or botnet node? 'spamhaus-test.org'" });
    expect(keysOf(byDomain).slice(0, 2)).toEqual(['hostwatch/check', 'hostwatch/lookup']);
    const byIp = await discoverOk(t, { query: 'spam source or botnet node? "45.133.1.22"' });
    expect(keysOf(byIp).slice(0, 2)).toEqual(['hostwatch/lookup', 'hostwatch/check']);
    // A quoted message that holds a domain is a payload, not the value: the words decide.
    const byMessage = await discoverOk(t, {
      query: "spam source or botnet node? 'our filter flagged the mail from spamhaus-test.org'",
    });
    expect(keysOf(byMessage).slice(0, 2)).toEqual(['hostwatch/lookup', 'hostwatch/check']);
  });

  it('reads an amount as a value: the endpoint that takes one comes first', async () => {
    const byWords = await discoverOk(t, { query: 'exchange rate of the eth usdc pool and its liquidity' });
    expect(keysOf(byWords).slice(0, 2)).toEqual(['pooldesk/rate', 'pooldesk/trade']);
    const byAmount = await discoverOk(t, { query: 'exchange rate of the eth usdc pool for 2.5 eth' });
    expect(keysOf(byAmount).slice(0, 2)).toEqual(['pooldesk/trade', 'pooldesk/rate']);
  });
});

describe('POST /v1/discover with a date in the query', () => {
  let t: TestApp;
  // Two endpoints described alike, the one for now a little closer to the query's words.
  beforeAll(async () => {
    t = await createTestApp({ env: DISCOVERY_TEST_ENV });
    await createProvider(t, {
      id: 'rainlog',
      category: 'data_intelligence',
      endpoints: [
        {
          slug: 'now',
          description: 'How much rain fell in a city: the rainfall total.',
          parameters: { city: { type: 'string', required: true, description: 'City name' } },
        },
        {
          slug: 'day',
          description: 'Rain in a city over one day, with the rainfall total and its intensity.',
          parameters: {
            city: { type: 'string', required: true, description: 'City name' },
            day: { type: 'string', required: true, description: 'Date, YYYY-MM-DD' },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('reads a date as a value: the endpoint that takes one comes first', async () => {
    const byWords = await discoverOk(t, { query: 'how much rain fell in seattle' });
    expect(keysOf(byWords).slice(0, 2)).toEqual(['rainlog/now', 'rainlog/day']);
    const byDate = await discoverOk(t, { query: 'how much rain fell in seattle on 4 november 2023' });
    expect(keysOf(byDate).slice(0, 2)).toEqual(['rainlog/day', 'rainlog/now']);
  });
});

describe('POST /v1/discover with coordinates in the query', () => {
  let t: TestApp;
  // Forward and reverse geocoding share their words; only the parameters say which takes a point. Words
  // alone: the sentence encoder's late interaction reads the digits as a position too, which would hide
  // what the value kind does.
  beforeAll(async () => {
    t = await createTestApp({ env: { ...DISCOVERY_TEST_ENV, SVC_EMBEDDINGS: 'off' } });
    await createProvider(t, {
      id: 'geodesk',
      category: 'data_intelligence',
      endpoints: [
        {
          slug: 'forward',
          method: 'GET',
          description: 'Street address lookup: look up a street address and get its map position.',
          parameters: { address: { type: 'string', required: true, description: 'Street address' } },
        },
        {
          slug: 'reverse',
          method: 'GET',
          description: 'Street address lookup: the street address at a map position.',
          parameters: {
            lat: { type: 'number', required: true, description: 'Latitude' },
            lon: { type: 'number', required: true, description: 'Longitude' },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('reads a latitude and longitude as a value: the endpoint that takes them comes first', async () => {
    const byWords = await discoverOk(t, { query: 'street address lookup' });
    expect(keysOf(byWords).slice(0, 2)).toEqual(['geodesk/forward', 'geodesk/reverse']);
    const byPoint = await discoverOk(t, { query: 'street address lookup for 40.748440,-73.985664' });
    expect(keysOf(byPoint).slice(0, 2)).toEqual(['geodesk/reverse', 'geodesk/forward']);
  });
});
