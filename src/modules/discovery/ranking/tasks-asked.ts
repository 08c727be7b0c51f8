// Ranking step 0's readings of a task the query asks in its own words rather than by the task's name
// (twenty-fourth round): a text asked boiled down ("tl;dr", "condense", "the gist", "key points") for a
// summary, and code asked in a programming language ("a python function that …", "a Postgres query for …")
// for a code generation, and a mailing list asked rid of its dead and fake addresses for a bulk e-mail
// verification. Each appends the task's words; tasks-held.ts runs them in its list.

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

/** Addresses to send to, many: a list, a newsletter or a campaign, e-mails, mailboxes, leads, sign-ups. */
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
