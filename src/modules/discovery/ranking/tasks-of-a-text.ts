// Ranking step 0's readings of a task asked of a text the query holds (twenty-first and twenty-third rounds):
// a language named for a translation, listed classes for a classification, another tone for a rewrite,
// fields asked back as JSON for an extraction, a question whether it is abusive for a moderation, its
// people and companies for entity recognition. Each appends the task's words; tasks-held.ts runs them in
// its list.
import { quotedValueKinds } from './quoted.js';

/** Whether the query quotes a text (a sentence, a message) rather than only values: the text each task is asked of. */
function quotesText(written: string): boolean {
  return quotedValueKinds(written).includes('text');
}

/** Languages a text is asked in, as a query names them. */
const LANGUAGE =
  '(?:english|spanish|french|german|italian|portuguese|dutch|polish|swedish|danish|norwegian|finnish|' +
  'czech|greek|turkish|russian|ukrainian|romanian|hungarian|arabic|hebrew|hindi|chinese|mandarin|' +
  'cantonese|japanese|korean|vietnamese|thai|indonesian)';
/**
 * A language a text is asked in: "in (polite) Japanese", "into German", "to English", or "a Polish
 * version"; not a currency named after a country ("in Japanese yen") nor "in plain English".
 */
const LANGUAGE_ASKED = new RegExp(
  `\\b(?:in(?:to)?|to)\\s+(?:(?:polite|formal|informal|casual|simple|natural|business)\\s+)?${LANGUAGE}\\b(?!\\s+(?:yen|yuan|won|baht|rupees?|dong|rupiah|lira|francs?|krona|krone|dollars?|pesos?|reais|zloty|forint|rubles?|hryvnia))|\\b${LANGUAGE}\\s+(?:version|copy|wording)\\b`,
  'iu',
);
/** Other jobs done in a language (speech, dubbing, subtitles, vectors, documents) or a translation already named. */
const NOT_A_TEXT_TRANSLATION =
  /\b(?:translat|locali[sz]|dub|subtit|caption|transcri|voice|audio|speech|speak|spoken|tts|aloud|podcast|video|recording|mp3|wav|embed|vector|pdf|docx?|pptx?|file)\w*/i;

/**
 * The query with a translation spelled out where it holds a text (quoted) and names the language it
 * wants it in: "what does 'Wo ist der Bahnhof?' mean in English", "put 'Your order has shipped' into
 * polite Japanese", "Polish version of: '…'" ask to translate, a word they do not write (twenty-first
 * round). Read from the query as written, since its quoted text is left out of the query as asked.
 */
export function withTranslationRead(asked: string, written: string): string {
  if (!LANGUAGE_ASKED.test(written) || NOT_A_TEXT_TRANSLATION.test(written)) return asked;
  return quotesText(written) ? `${asked} translate` : asked;
}

/**
 * Items sorted into classes the query lists: a verb of sorting ("sort", "classify", "route", "tag",
 * "label", "triage", "bucket", "categorise") and, after "into" or "as", two or more classes apart by "/",
 * "," or "or" ("into billing / bug / feature request", "as positive/negative/neutral", "as 'urgent' or
 * 'not urgent'"). The verb stands at most 120 characters before "into" or "as", which bounds the search on
 * a long query.
 */
const CLASS =
  "(?:['\"‘“]?[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*(?:\\s+[\\p{L}\\p{N}][\\p{L}\\p{N}'’-]*){0,3}['\"’”]?)";
const SORTED_INTO_CLASSES = new RegExp(
  `\\b(?:sort|classif|categori[sz]|bucket|triage|route|routing|tag|label)\\w*\\b[^.?!]{0,120}?\\b(?:into|as)\\s+${CLASS}(?:\\s*(?:/|,|\\bor\\b)\\s*${CLASS})+`,
  'iu',
);

/**
 * The query with a classification spelled out where it asks for items sorted into classes it names
 * ("sort support tickets into billing / bug / feature request"): its words (support, billing, refund)
 * are the items' and the classes', and match help desks and payments before a classifier (twenty-first
 * round). Read from the query as written: classes may be quoted.
 */
export function withClassificationRead(asked: string, written: string): string {
  if (/\bclassif/i.test(written)) return asked;
  return SORTED_INTO_CLASSES.test(written) ? `${asked} text classification classify categories` : asked;
}

/**
 * A text asked to sound another way: "make this sound more professional", "make it sound less angry"
 * ("make" at most 80 characters before "sound", which bounds the search on a long query).
 */
const TONE_ASKED =
  /\bmake\b[^.?!:;]{0,80}?\bsound\s+(?:more\s+|less\s+|a\s+bit\s+|a\s+little\s+)?\p{L}{3,}/iu;

/**
 * The query with a rewrite spelled out where it holds a text (quoted) and asks that it sound another way
 * ("make this sound more professional before I send it to my boss: 'hey cant make it tmrw'"): a rewrite,
 * a word it does not write, while "sound" matches audio and its other words (boss, landlord, status page)
 * match e-mail and messaging (twenty-first round). Not where the query already says rewrite or asks for
 * speech or audio.
 */
export function withRewriteRead(asked: string, written: string): string {
  if (
    !TONE_ASKED.test(written) ||
    /\b(?:rewrit|rephras|reword|voice|audio|speech|song|music|mp3)/i.test(written)
  )
    return asked;
  return quotesText(written) ? `${asked} rewrite text` : asked;
}

/** Fields asked back as JSON: "into JSON", "as json", "JSON with …", or a list of fields in braces ("{name, order_id}"). */
const JSON_FIELDS_ASKED =
  /\b(?:into|as|in)\s+(?:(?:a|valid|clean|strict|structured|proper)\s+)?json\b|\bjson\s+(?:with|w\/)|\{\s*[\w[\]]+\s*,\s*[\w[\]]+/i;
/** A text the fields are pulled from, named: an e-mail, a message, a note, a clause, a transcript. */
const TEXT_NAMED =
  /\b(?:e-?mails?|messages?|notes?|brief|clause|signature|transcripts?|text|body|repl(?:y|ies)|letters?|free-text|unstructured)\b/i;
/** What is not a text the caller holds: a file, an image, a page, a table, search results, inbound mail. */
const NOT_FROM_A_TEXT =
  /\b(?:csv|xml|yaml|xlsx?|excel|spreadsheet|pdfs?|jpe?g|png|img|image|photo|scan\w*|receipts?|pages?|site|urls?|google|serp|results|webhook|inbound|incoming|forward\w*|extract\w*)\b|https?:\/\//i;

/**
 * The query with an extraction spelled out where it holds a text and asks fields of it back as JSON
 * ("Turn this email into JSON {invoice_number, amount, due_date}: 'Hi team, …'"): its words (email,
 * invoice, order) are the text's, and match e-mail senders and invoicing before a structured extraction
 * (twenty-third round). The text is quoted or named; not where the query says extract or the fields come
 * from a file, a page or a table.
 */
export function withJsonExtractionRead(asked: string, written: string): string {
  if (!JSON_FIELDS_ASKED.test(written) || NOT_FROM_A_TEXT.test(written)) return asked;
  return TEXT_NAMED.test(written) || quotesText(written) ? `${asked} extract structured data json` : asked;
}

/** A text judged for abuse: toxic, abusive, hateful, harassing, offensive, insulting, to be blocked or hidden. */
const ABUSE_ASKED =
  /\b(?:toxic\w*|abusive|hateful|hate\s+speech|harass\w*|offensive|insult\w*|profan\w*|slurs?|beleidigend|blocked|hide)\b/iu;

/**
 * The query with a moderation spelled out where it holds a text (quoted) and asks whether it is abusive
 * ("is this comment toxic: 'you're an idiot …'", "should this forum comment be blocked? '…'"): with the
 * text left out, what is left (comment, forum, blocked) matches comment APIs and spam filters before a
 * moderation (twenty-third round). Not where the query already says moderate.
 */
export function withModerationRead(asked: string, written: string): string {
  if (!ABUSE_ASKED.test(written) || /\bmoderat/i.test(written)) return asked;
  return quotesText(written) ? `${asked} content moderation toxicity` : asked;
}

/** Kinds of named entity a query lists: people, companies and organisations, places. */
const ENTITY_KINDS = [
  /\b(?:people|persons?|person's|names of people)\b/i,
  /\b(?:compan(?:y|ies)|organi[sz]ations?|orgs?)\b/i,
  /\b(?:places?|locations?|cities|countries)\b/i,
];
/** A text the entities are named in: quoted, or a press release, an article, a paragraph, a note. */
const ENTITY_TEXT_NAMED =
  /\b(?:press\s+release|article|paragraph|note|text|transcript|email|memo|report)\b|\bin:/i;
/** The entities asked as names in a text: "mentioned in", "named in", "names", "appears in". */
const ENTITIES_ASKED = /\b(?:mentioned|named|names|appears?|appearing)\b|\bin:/i;

/**
 * The query with an entity extraction spelled out where it holds a text and asks the people, companies or
 * places in it, two kinds at least ("pull out every person, company and place mentioned in: '…'"): its
 * words (company, person, place) match company registers, people search and place search before entity
 * recognition (twenty-third round). Not where the query masks or redacts them.
 */
export function withEntityExtractionRead(asked: string, written: string): string {
  if (!ENTITIES_ASKED.test(written) || ENTITY_KINDS.filter((kind) => kind.test(written)).length < 2)
    return asked;
  if (/\b(?:entit\w*|ner|mask\w*|redact\w*|black\s+out|blank\s+out|anonymi\w*)\b/i.test(written))
    return asked;
  return ENTITY_TEXT_NAMED.test(written) || quotesText(written)
    ? `${asked} named entity recognition extract entities`
    : asked;
}
