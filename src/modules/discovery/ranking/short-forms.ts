// Short forms people type into a search box ("bank hols 2025", "AAPL px", "tz for -33.86,151.2"): a
// catalogue that spells the word out never matches them. General English and chat shorthand, not a
// domain list: ambiguous ones are left out ("co": company or Colorado, "temp": temperature or
// temporary, "docs": documents or documentation, "st": street or saint, "vol": volume or volatility).

const SHORT_FORMS = new Map<string, string>(
  Object.entries({
    px: 'price',
    chg: 'change',
    hols: 'holidays',
    hol: 'holiday',
    msg: 'message',
    msgs: 'messages',
    addr: 'address',
    acct: 'account',
    amt: 'amount',
    bal: 'balance',
    qty: 'quantity',
    yr: 'year',
    yrs: 'years',
    wk: 'week',
    wks: 'weeks',
    hr: 'hour',
    hrs: 'hours',
    mins: 'minutes',
    secs: 'seconds',
    info: 'information',
    approx: 'approximate',
    avg: 'average',
    govt: 'government',
    dept: 'department',
    convo: 'conversation',
    pic: 'picture',
    pics: 'pictures',
    vid: 'video',
    vids: 'videos',
    img: 'image',
    imgs: 'images',
    pwd: 'password',
    tel: 'phone',
    bday: 'birthday',
    mtg: 'meeting',
    appt: 'appointment',
    repo: 'repository',
    db: 'database',
    calc: 'calculate',
    eta: 'arrival time',
    dob: 'date of birth',
    notif: 'notification',
    notifs: 'notifications',
    ppl: 'people',
    biz: 'business',
    mkt: 'market',
    mcap: 'market cap',
    ytd: 'year to date',
    eod: 'end of day',
    ath: 'all time high',
    tldr: 'summary',
    loc: 'location',
    coords: 'coordinates',
    lat: 'latitude',
    lng: 'longitude',
    lon: 'longitude',
    intl: 'international',
    cert: 'certificate',
    certs: 'certificates',
    sched: 'schedule',
    avail: 'availability',
    desc: 'description',
    lang: 'language',
    inv: 'invoice',
    pmt: 'payment',
    pmts: 'payments',
    mgmt: 'management',
    perf: 'performance',
    stats: 'statistics',
    hist: 'history',
  }),
);

/**
 * Abbreviations of the trade that catalogues write as often as people type them ("ASR", "TTS", "KYC",
 * "OHLCV"), with the plain words they stand for (sixteenth round). Unlike the short forms above, they are
 * read on both sides: in a query, as those are; in an endpoint's text, the words they stand for are
 * indexed beside them, so "speech to text" finds an endpoint written as "ASR, 40 languages". Only forms
 * that mean one thing in an API catalogue.
 */
const DOMAIN_TERMS = new Map<string, string>(
  Object.entries({
    tz: 'timezone',
    tx: 'transaction',
    txs: 'transactions',
    txn: 'transaction',
    txns: 'transactions',
    wx: 'weather',
    fx: 'exchange rate',
    asr: 'automatic speech recognition',
    ocr: 'optical character recognition',
    mt: 'machine translation',
    ner: 'named entity recognition',
    kyc: 'know your customer identity verification',
    kyb: 'know your business verification',
    idv: 'identity verification',
    aml: 'anti money laundering',
    pep: 'politically exposed person',
    peps: 'politically exposed persons',
    ubo: 'ultimate beneficial owner',
    ohlc: 'open high low close candles',
    ohlcv: 'open high low close volume candles',
    serp: 'search engine results page',
    serps: 'search engine results pages',
    mx: 'mail exchanger',
    otp: 'one time password',
    otps: 'one time passwords',
    '2fa': 'two factor authentication',
    mfa: 'multi factor authentication',
    nsfw: 'not safe for work',
    dex: 'decentralized exchange',
    dexes: 'decentralized exchanges',
    tvl: 'total value locked',
    apy: 'annual percentage yield',
    ens: 'ethereum name service',
    gtin: 'global trade item number',
    upc: 'universal product code',
    ean: 'european article number',
    vat: 'value added tax',
    iban: 'international bank account number',
    hlr: 'home location register',
    cve: 'common vulnerabilities and exposures',
    cves: 'common vulnerabilities and exposures',
  }),
);

/** Terms read in an endpoint's text only: in a query, "mt" is as often a mountain ("Mt Fuji"). */
const ENDPOINT_ONLY = new Set(['mt']);

/** The words a short form or a term of the trade stands for ("hols" -> "holidays"), or undefined. */
export function spelledOut(word: string): string | undefined {
  return SHORT_FORMS.get(word) ?? (ENDPOINT_ONLY.has(word) ? undefined : DOMAIN_TERMS.get(word));
}

/** The words a term of the trade in an endpoint's text stands for ("asr" -> "automatic speech recognition"). */
export function termSpelledOut(word: string): string | undefined {
  return DOMAIN_TERMS.get(word);
}
