// Ranking step 0's readings of a task the query asks in its own words rather than by the task's name.
// Twenty-fourth round: a text asked boiled down ("tl;dr", "condense", "the gist", "key points") for a
// summary, code asked in a programming language ("a python function that …", "a Postgres query for …") for
// a code generation, a mailing list asked rid of its dead and fake addresses for a bulk e-mail
// verification. Twenty-fifth round: personal data asked out of a text for a PII redaction, an e-mail
// address asked whether it is real for an e-mail verification, a search engine's results asked for a web
// search. Twenty-seventh round: the weather asked now for the current conditions, alt text for an image
// caption, a phone number called to say something for a phone call. Twenty-ninth round: "txt2img" for an
// image generation, how many of something an image shows for an object count, a place open now nearby for
// a place search, how long a drive takes for a route, texts asked as vectors for text embeddings.
// Thirtieth round: a text message asked by how it goes ("by text", a blast) for an SMS send, a chart held
// as a picture and asked about for a visual question. Thirty-first round: an e-mail address held and a
// file asked sent to it for an e-mail with an attachment. Each appends the task's words; tasks-held.ts runs
// them in its list.
import { valueKindOf, valueKindsOf } from './value-kinds.js';

/**
 * A text asked shorter without the word summary: "tl;dr", "boil it down", "condense", "the gist",
 * "in a nutshell", "sum it up", "recap", "cliff notes", "key points", "takeaways" ("boil" at most 60
 * characters before "down", which bounds the search on a long query).
 */
const BOILED_DOWN =
  /\b(?:tl;?dr|boil(?:s|ed|ing)?\b[^.?!]{0,60}?\bdown|condens(?:e|es|ed|ing)|gist|in\s+a\s+nutshell|sum\s+(?:it\s+|this\s+|them\s+)?up|recap|cliff\s*notes|(?:key|main)\s+(?:points|takeaways)|takeaways)\b/i;

/**
 * The query with a summary spelled out where it asks a text boiled down in its own words ("tl;dr this
 * 8-page supplier contract into 5 bullet points", "boil the text down to what matters"): its other words
 * (contract, transcript, report) match document and contract endpoints before a summarizer. Not where it
 * already says summary.
 */
export function withSummaryRead(asked: string, written: string): string {
  if (/\bsumm?ar/i.test(written) || !BOILED_DOWN.test(written)) return asked;
  return `${asked} summarize summary`;
}

/** Programming and query languages a query names code in ("go" and "r" left out: they are English words too). */
const CODE_LANGUAGE =
  '(?:python|javascript|js|typescript|ts|node(?:\\.js)?|sql|postgres(?:ql)?|mysql|sqlite|bash|shell|powershell|golang|rust|java|kotlin|swift|ruby|php|c\\+\\+|c#|scala)';
/**
 * Code asked for in a language: a verb of asking, then within 30 characters the language and what is
 * wanted ("write a python function", "give me a Postgres query", "write SQL for postgres", "generate a TS
 * snippet").
 */
const CODE_ASKED = new RegExp(
  `\\b(?:write|give|generate|make|create|draft|need|want)\\b[^.?!:]{0,30}?\\b${CODE_LANGUAGE}(?![\\w+#])\\s*(?:func(?:tion)?s?|fn|scripts?|query|queries|snippets?|class|method|program|code|one-?liner|regex|sql|for)\\b`,
  'i',
);

/**
 * The query with a code generation spelled out where it asks code in a language ("write a python function
 * that parses ISO 8601 durations", "give me a Postgres query for the top 5 customers"): what the code is
 * to do (parse dates, customers, revenue) matches date parsers and CRMs before a code model. Not where it
 * asks to review, explain, fix or convert code it holds.
 */
export function withCodeGenerationRead(asked: string, written: string): string {
  if (!CODE_ASKED.test(written)) return asked;
  if (/\b(?:review|explain|debug|fix|refactor|convert|translat\w*|lint|format)\b/i.test(written))
    return asked;
  return `${asked} code generation generate code`;
}

/** Addresses to send to, many: e-mails, mailboxes, addresses, a newsletter or a campaign, leads, sign-ups. */
const MAILING_LIST =
  /\b(?:e-?mails|mailbox(?:es)?|addresses|adresses|newsletter|campaign|leads|sign-?ups|subscribers)\b/i;
/** A verb of weeding out: remove, weed out, drop, throw out, get rid of, clean, scrub, prune, purge. */
const WEEDED_OUT =
  /\b(?:remove|weed(?:ing)?\s+out|drop|throw\s+out|get\s+rid|clean|scrub|prune|purge|filter\s+out)\b/i;
/** What is weeded out: dead, fake, bouncing, undeliverable, disposable, throwaway, invalid addresses. */
const DEAD_OR_FAKE = /\b(?:dead|fake|fakes|bounc\w*|undeliverable|disposable|throwaway|invalid|temporary)\b/i;

/**
 * The query with a bulk e-mail verification spelled out where it asks a mailing list rid of its dead and
 * fake addresses ("Remove the dead and fake addresses from the list before the campaign", "weed out the
 * dead ones from 5,000 emails"): its words (campaign, newsletter, send) match e-mail senders before a
 * verifier. Not where it already says verify or validate.
 */
export function withListCleaningRead(asked: string, written: string): string {
  if (!DEAD_OR_FAKE.test(written) || !WEEDED_OUT.test(written) || !MAILING_LIST.test(written)) return asked;
  if (/\b(?:verif|valid)/i.test(written)) return asked;
  return `${asked} bulk email verification verify`;
}

/** A verb of taking out: strip, scrub, remove, mask, hide, redact, black out, blank out, anonymise, take out. */
const TAKEN_OUT =
  /\b(?:strip|scrub|remove|mask|hide|redact|black\s+out|blank\s+out|anonymi[sz]e|take\s+out)\b/i;
/** Kinds of personal data a query lists: names, e-mails, phone numbers, SSNs, card and bank numbers, addresses, birth dates. */
const PERSONAL_DATA = [
  /\b(?:customer\s+|people's\s+|person\s+)?names\b/i,
  /\b(?:e-?mails?|email\s+addresses)\b/i,
  /\b(?:phone|mobile)\s*(?:numbers?|nums?|nos?|#s?)?\b/i,
  /\bssns?\b|\bsocial\s+security\b/i,
  /\b(?:credit\s+)?card\s+(?:numbers?|nums?|nos?)\b|\bibans?\b|\bbank\s+account/i,
  /\b(?:home|postal|street)\s+addresses\b|\bdates?\s+of\s+birth\b|\bdobs?\b/i,
];

/**
 * The query with a PII redaction spelled out where it asks two kinds of personal data or more taken out
 * of a text ("strip names, emails and SSNs out of support tickets before they go to an LLM", "scrub
 * emails + phone #s out of chat logs"): its words (emails, phone, tickets, card) match e-mail checkers,
 * phone lookups and help desks before a redactor. Not where it already says PII, redact or anonymise.
 */
export function withPersonalDataRedactionRead(asked: string, written: string): string {
  if (!TAKEN_OUT.test(written)) return asked;
  if (/\b(?:pii|redact\w*|anonymi\w*|pseudonymi\w*)\b/i.test(written)) return asked;
  return PERSONAL_DATA.filter((kind) => kind.test(written)).length >= 2
    ? `${asked} pii redaction redact personal data`
    : asked;
}

/** An address asked whether it is real: deliverable, real, exists, legit, a burner or throwaway, will bounce, a typo. */
const REAL_ADDRESS_ASKED =
  /\b(?:deliverable|undeliverable|real|exists?|legit|burner|throwaway|disposable|bounce|typo)\b/i;
/** What asks about mail sent, not an address: did it bounce, was it delivered or opened, events. */
const MAIL_SENT_ASKED =
  /\b(?:did|was|were|has|have|which)\b[^?!]{0,60}\b(?:bounce\w*|deliver\w*|open\w*)|\b(?:events?|opened|message\s+id)\b/i;

/**
 * The query with an e-mail verification spelled out where it holds one e-mail address and asks whether it
 * is real ("About to send a contract to kevin@gmial.com. Is that address actually deliverable, or is it a
 * typo?"): its other words (send, contract, newsletter, invoice) match e-mail senders before a verifier.
 * Not where it asks about mail already sent (did it bounce, was it opened), or already says verify or
 * validate.
 */
export function withAddressVerificationRead(asked: string, written: string): string {
  if (!REAL_ADDRESS_ASKED.test(written) || MAIL_SENT_ASKED.test(written)) return asked;
  if (/\b(?:verif|valid)/i.test(written)) return asked;
  const emails = written.split(/\s+/).filter((token) => valueKindOf(token.toLowerCase()) === 'email');
  return emails.length === 1 ? `${asked} email verification verify` : asked;
}

/** A search engine's results asked for: "google results for …", "top 10 Google organic results", "bing serp". */
const SEARCH_RESULTS_ASKED =
  /\b(?:google|bing|duckduckgo)(?:-?(?:like|style))?\b[^.?!]{0,20}?\b(?:results?|serps?|hits|links)\b/i;

/**
 * The query with a web search spelled out where it asks a search engine's results ("top google results for
 * best bookkeeping software for freelancers uk"): what is searched for (bookkeeping, running shoes, a CRM)
 * is the payload, and matches those endpoints before a search API. Not where it asks search volumes,
 * keyword data, trends or ads, or already says web search.
 */
export function withWebSearchRead(asked: string, written: string): string {
  if (!SEARCH_RESULTS_ASKED.test(written)) return asked;
  if (/\b(?:volumes?|cpc|keywords?|trends?|ads|web\s+search)\b/i.test(written)) return asked;
  return `${asked} web search serp`;
}

/**
 * The weather asked: weather (or a typo of it: wether, wheather, weahter, or "wx"), rain, snow, temperature, wind,
 * gusts, humidity, how cold or hot it is (not a hot wallet, cold storage, a warm intro, a temp mail or
 * winding down).
 */
const WEATHER_ASKED =
  /\b(?:weather|wether|wheather|weahter|wheater|waether|wx|rain(?:ing)?|snow(?:ing)?|temp(?:erature)?s?(?!\s*(?:e-?mail|mail|inbox|files?|folder|address|number|phone))|winds?(?!\s+down)|windy|gusts?|humidity|sunny|cloudy|(?:how|hw|is\s+it|it's|its)\s+(?:cold|hot|warm))\b/i;
/** Now: "right now", "rn", "currently", "at the moment", "atm". */
const NOW_ASKED = /\b(?:(?:right\s+)?now|rn|currently|at\s+the\s+moment|atm)\b/i;
/**
 * Another time or another measure: a forecast, later, history, averages, air quality, alerts, the next
 * minutes, aviation weather.
 */
const NOT_NOW =
  /\b(?:forecasts?|tomorrow|tonight|later|next|week|weekend|hourly|daily|will|going\s+to|gonna|start|yesterday|last|history|historical|past|average|usually|typical|normals?|aqi|air|pm2(?:\.5)?|pollen|uv|alerts?|warnings?|radar|minutes?|mins?|hours?|tides?|marine|swell|waves?|soil|expected|preflight|metar|taf|vfr|ifr|instrument|runway|aviation|cloud\s+base)\b/i;

/**
 * The query with the current conditions spelled out where it asks the weather now ("weather rn in
 * oslo", "is it raining in Porto right now?", "temp and wind at 59.91, 10.75 right now"): its words
 * (weather, rain, temperature) match forecasts, archives and alerts as well as the current conditions.
 * Not where it asks a forecast, a later time, history, averages, air quality or alerts.
 */
export function withWeatherNowRead(asked: string, written: string): string {
  if (!WEATHER_ASKED.test(written) || !NOW_ASKED.test(written) || NOT_NOW.test(written)) return asked;
  return `${asked} current weather conditions`;
}

/** Alt text asked: "alt text", "alt-text", "alt tags". */
const ALT_TEXT_ASKED = /\balt[- ]?(?:text|tags?)\b/i;

/**
 * The query with an image caption spelled out where it asks alt text ("auto alt text for user uploaded
 * imgs (a11y)", "alt text for https://img.shopwise.dev/p/8812.jpg"): its words (images, product photos,
 * website, upload) match image generators, converters and scrapers before a captioner. Not where it
 * already says caption.
 */
export function withAltTextRead(asked: string, written: string): string {
  if (!ALT_TEXT_ASKED.test(written) || /\bcaption/i.test(written)) return asked;
  return `${asked} image caption describe image`;
}

/**
 * Where a request's verb stands: first in a sentence or after a colon or a dash, or after "please", "can
 * you", "I need to" (a regular expression's source, for the verb after it). Not as-read.ts's
 * `REQUEST_LEAD`: importing it here would close a cycle (as-read.ts runs this list), and an alert's "…
 * down in us-east-1: phone the on-call engineer" puts the verb after a colon or a dash, which
 * `REQUEST_LEAD` does not take.
 */
const VERB_LEAD =
  '(?:^|[.!?;:\\u2014\\u2013]\\s*|\\s-\\s|\\b(?:please|(?:can|could|would)\\s+you|(?:i|we)\\s+need\\s+(?:you\\s+)?to)\\s+)';

/** A call asked where a request's verb stands (`VERB_LEAD`). */
const CALL_ASKED = new RegExp(`${VERB_LEAD}(?:call|ring|phone|dial)\\b`, 'i');
/** What the call is to say: say, read out, tell, remind, a voice, out loud, press 1. */
const SPOKEN = /\b(?:say|saying|read|tell|remind\w*|voice|out\s+loud|aloud|spoken|press\s+\d)\b/i;

/**
 * The query with a phone call spelled out where it asks a phone number called and something said
 * ("call +1 212 555 0188 and tell them tomorrow's meeting moved to 4pm", "ring +44 20 7946 0018, read out
 * an appointment reminder"): what is to be said (a meeting, a table, a liquidation warning) matches
 * calendars, restaurants and lending endpoints before a call. Not where it asks a text or a code sent.
 */
export function withPhoneCallRead(asked: string, written: string): string {
  if (!CALL_ASKED.test(written) || !SPOKEN.test(written)) return asked;
  if (/\b(?:texts?|sms|whatsapp|otp|code|verif\w*)\b/i.test(written)) return asked;
  return valueKindsOf(written).includes('phone') ? `${asked} phone call` : asked;
}

/** Text to image asked by its short form: "txt2img", "text2img", "text2image". */
const TEXT_TO_IMAGE_SHORT = /\b(?:txt|text)2(?:img|image)\b/i;

/**
 * The query with an image generation spelled out where it names it by its short form ("txt2img:
 * cyberpunk bull charging down wall st, 1024x1024"; twenty-ninth round): a token with a digit is read as
 * a value, so step 3's short forms leave it as written, and what is to be drawn (a bull, Wall St) matches
 * market data before a generator. Not "txt2vid": where the catalogue makes images but no video, "text to
 * video generate video" made the image generators look like an answer (a no-answer query lost its flag).
 */
export function withTextToImageShortFormRead(asked: string, written: string): string {
  return TEXT_TO_IMAGE_SHORT.test(written) ? `${asked} text to image generate image` : asked;
}

/** A count asked: "how many cars are in …", "how many people are standing in …" (not calories, nor staff). */
const COUNT_ASKED = /\bhow\s+many\s+(?!cal(?:orie)?s?\b|kcal\b|staff\b|employees\b)\p{L}+/iu;
/** An image held: a link to a picture, or "this photo", "the camera frame", "this webcam snapshot". */
const IMAGE_HELD =
  /\.(?:png|jpe?g|gif|webp|heic)\b|\b(?:this|these|the|my|our|attached)\s+(?:[\p{L}-]+\s+){0,2}(?:photos?|images?|pictures?|pics?|snapshots?|frames?|screenshots?|shots?)\b/iu;

/**
 * The query with an object count spelled out where it asks how many of something an image it holds shows
 * ("how many cars are in this parking lot photo https://…/lot.jpg", "How many people are standing in this
 * photo of our lunchtime queue?"; twenty-ninth round): what is counted (cars, workers, a queue) matches
 * parking, staffing and scheduling endpoints before a detector. Not a meal's calories.
 */
export function withObjectCountRead(asked: string, written: string): string {
  if (!COUNT_ASKED.test(written) || !IMAGE_HELD.test(written)) return asked;
  return `${asked} count objects in image detect objects`;
}

/** Open now asked: "open right now", "open now", "open at the moment", "still open", "open rn". */
const OPEN_NOW = /\bopen\s+(?:right\s+)?(?:now|rn|at\s+the\s+moment|atm|tonight|late)\b|\bstill\s+open\b/i;

/**
 * The query with a nearby place search spelled out where it asks a place open now near where it is
 * ("find a pharmacy open right now near 34.0522,-118.2437", "Nearest builders' merchant to 52.48,-1.89
 * that's open at the moment?"; twenty-ninth round): what is sought (a pharmacy, a builders' merchant, a
 * fever) matches health and trade endpoints before a place search. Not a market or an exchange open.
 */
export function withOpenNearbyRead(asked: string, written: string): string {
  if (
    !OPEN_NOW.test(written) ||
    /\b(?:markets?|exchanges?|nyse|nasdaq|lse|tse|stocks?|trading)\b/i.test(written)
  )
    return asked;
  if (!/\b(?:near|nearby|nearest|closest|close\s+to|within|around|walking\s+distance)\b/i.test(written))
    return asked;
  return `${asked} places nearby search`;
}

/** A drive's duration asked: "how long is the drive", "how long to drive", "drive time", "driving time". */
const DRIVE_TIME_ASKED = /\bhow\s+long\b[^?.!]{0,40}?\bdriv(?:e|ing)\b|\bdriv(?:e|ing)[- ]times?\b/i;
/** Many origins or stops: a matrix, every depot, each courier, 40 drops, a route optimised. */
const MANY_STOPS =
  /\b(?:matrix|every|each|all|pairs?|stops|drops|drop-offs|optimi\w+|limit|left)\b|\d+\s*x\s*\d+/i;

/**
 * The query with a route spelled out where it asks how long a drive from one place to another takes
 * ("How long is the drive from our place in Evanston IL to O'Hare if we leave at 6am Monday?", "how long
 * is the drive from our studio in Leeds (LS1 4DY) to the client's office in York tomorrow morning";
 * twenty-ninth round): the places and times (an airport, a flight, a client's office, tomorrow) match
 * flight boards, time zones and calendars before a router. Not a matrix of many origins or stops.
 */
export function withDriveTimeRead(asked: string, written: string): string {
  if (!DRIVE_TIME_ASKED.test(written) || MANY_STOPS.test(written)) return asked;
  if (!/\bfrom\b[^?!]+\bto\b|->|\u2192/i.test(written)) return asked;
  return `${asked} driving directions route travel time`;
}

/** Texts asked as vectors: "vectorize", "vectorise", "vectors for …", "into vectors", "search by meaning". */
const VECTORS_ASKED =
  /\bvectori[sz](?:e|es|ed|ing)\b|\b(?:need|create|make|get|want|generate)?\s*vectors\s+(?:for|of)\b|\binto\s+(?:(?:a|numeric|\d+[- ]\w+)\s+)?vectors?\b|\bas\s+vectors\b|\bby\s+meaning\b/i;
/** Other asks of vectors: a query of stored vectors, a rerank, chunks, a CVSS vector, vector graphics. */
const NOT_EMBEDDING =
  /\b(?:embed\w*|knn|ann|top[_-]?k|nearest|stored|rerank\w*|re-?order|re-?sort|chunks?|split|pieces|cvss|svg|logo|graphics?|image|images|imgs|photos?|pictures?)\b/i;

/**
 * The query with text embeddings spelled out where it asks texts turned into vectors without saying
 * embedding ("need vectors for ~3000 product descriptions so shoppers can search our store by meaning",
 * "vectorise 5k product descriptions"; twenty-ninth round): what the texts are (products, a shop, FAQs)
 * matches catalogues and chatbots before an embedding model. Not a query of stored vectors, a rerank, a
 * text cut into chunks, or an image's vectors.
 */
export function withTextEmbeddingRead(asked: string, written: string): string {
  if (!VECTORS_ASKED.test(written) || NOT_EMBEDDING.test(written)) return asked;
  return `${asked} text embeddings embed`;
}

/** A text message asked by how it goes: "by text", "by text message", "via sms", "over sms", or a blast of texts. */
const BY_TEXT =
  /\b(?:by|via|over)\s+(?:text|sms)(?:\s+message)?\b|\bblast\b[^.?!]{0,40}?\b(?:texts?|sms|promo)\b|\b(?:texts?|sms)\s+blast\b/i;
/** Many recipients: all of a group, everyone, or a number of members, customers, volunteers, subscribers. */
const MANY_RECIPIENTS =
  /\b(?:all|every(?:one|body)?|each)\b|\b\d[\d,.]*k?\s+(?:\p{L}+\s+){0,2}(?:members|customers|custmers|volunteers|subscribers|users|patients|parents|people|contacts|recipients|numbers|guests|clients|tenants|students|staff|employees)\b/iu;

/**
 * The query with a text message spelled out where it asks one sent by how it goes ("let all 800 members
 * of the running club know by text that the race has moved", "Let the customer at +1 416 555 0199 know by
 * text that their pickup is ready", "blast a text to all 230 loyalty customers"; thirtieth round): what
 * it says (a race, a pickup, a sale) matches schedules and inboxes first. Many recipients ask a bulk send.
 * Not a code to verify, a reply or a delivery asked about, nor a blast cancelled.
 */
export function withTextMessageRead(asked: string, written: string): string {
  if (!BY_TEXT.test(written)) return asked;
  if (
    /\b(?:otp|2fa|codes?|passcode|verif\w*|repl(?:y|ies|ied)|replied|delivered|status|cancel\w*|whatsapp|mobile\s+or\s+landline)\b/i.test(
      written,
    )
  )
    return asked;
  if (MANY_RECIPIENTS.test(written)) return `${asked} bulk sms send`;
  return valueKindsOf(written).includes('phone') ? `${asked} send sms` : asked;
}

/** A chart named: a chart, graph, plot or dashboard. */
const CHART_NAMED = /\b(?:chart|graph|plot|dashboard)s?\b/i;
/** A picture held: a link to one, a screenshot, a PNG, "an image of …". */
const PICTURE_HELD =
  /\.(?:png|jpe?g|webp)\b|\b(?:screenshot|png|jpe?g)\b|\b(?:image|picture|photo)\s+of\s+(?:a|an|the|this|our)\b/i;

/**
 * The query with a visual question spelled out where it asks what a chart it holds as a picture shows
 * ("what does this chart show? https://…/q3-revenue.png", "read the numbers off this dashboard screenshot";
 * thirtieth round): "screenshot", "PNG" and "chart" match screenshot takers, PDF converters and trend data
 * first. Not a chart to make, take, post, send or caption.
 */
export function withChartQuestionRead(asked: string, written: string): string {
  if (!CHART_NAMED.test(written) || !PICTURE_HELD.test(written)) return asked;
  if (
    /\b(?:take|capture|render|make|create|generate|draw|build|alt|caption|post|send|share|upload|telegram|slack|tweet)\b/i.test(
      written,
    )
  )
    return asked;
  return `${asked} visual question answering ask about image`;
}

/** A file to go with a message: a PDF, an attachment, a zip, or a document by its kind (invoice, receipt, quote, contract, report). */
const FILE_NAMED =
  /\b(?:pdfs?|attach\w*|zip|invoices?|receipts?|quotes?|contracts?|reports?|statements?|itinerar(?:y|ies)|leases?|nda|msa)\b|\.(?:pdf|zip|docx?|xlsx?|csv|log)\b/i;
/**
 * A mail asked sent where a request's verb stands (`VERB_LEAD`): "email …", "Send the order confirmation
 * e-mail …", "Order-shipped step: email …".
 */
const MAIL_SENT = new RegExp(`${VERB_LEAD}(?:e-?mail|send|mail)\\b`, 'i');
/** Other asks of an address or a file: a signature, a check of the address, a reminder scheduled, a fax, a letter. */
const NOT_MAIL_SENT =
  /\b(?:to\s+(?:e-?)?sign|e-?sign\w*|sign\s+it|signatures?|verif\w*|valid\w*|bounc\w*|exist\w*|real|deliverab\w*|disposable|find|finder|lookup|parse|extract\w*|json|inbound|receive\w*|whatsapp|sms|texts?|fax|letter|post(?:al)?|remind\w*|schedul\w*|not\s+now|secure\w*|encrypt\w*|not\s+as|signed\s+by|electronically|create|generate|make|draft|build)\b|^\s*invoice\b/i;

/**
 * The query with an e-mail sent with a file spelled out where it holds an e-mail address and asks a file
 * sent to it ("Email the signed lease PDF to jane.okafor@gmail.com with a short note", "Email my
 * accountant (accountant@smithcpa.com) the receipts PDF"; thirty-first round): the file's words (a signed
 * lease, an invoice, a quote) match e-signature, invoicing and document endpoints before a mail sender.
 * Not a signature asked, the address checked, a reminder scheduled, a fax or a letter.
 */
export function withMailWithFileRead(asked: string, written: string): string {
  // The file is read from the query as read so far: a quoted subject or body ("'Invoice #4471 overdue'") is not a file.
  if (!MAIL_SENT.test(written) || !FILE_NAMED.test(asked) || NOT_MAIL_SENT.test(written)) return asked;
  return valueKindsOf(written).includes('email') ? `${asked} send email with attachment` : asked;
}
