// Quoted spans of a query (ranking step 0): a payload the caller wants processed, not the ask. Left out of
// the query as read (as-read.ts), and read for their kinds: a value's, or a text the caller holds.
import { isQuotedValue, type ValueKind, valueKindsOf } from './value-kinds.js';

/**
 * A quoted span of a query: a payload the caller wants processed ("similarity between 'reset my password'
 * and ...", "articles mentioning \"Silicon Valley Bank\""), not the capability asked for. It opens after
 * the start, a space, "(" or ":" and closes before the end, a space or punctuation; a single-quoted span
 * may hold apostrophes followed by a letter (won't).
 */
const QUOTED_SPAN = /(^|[\s(:])(?:["“][^"“”]+["”]|['‘](?:[^'‘’]|['’](?=\p{L}))+['’])(?=$|[\s).,?:;!-])/gu;

/** The query without its quoted payloads, as it is matched and encoded; the query itself when nothing else is left. */
export function withoutQuotedText(query: string): string {
  const asked = query.replace(QUOTED_SPAN, '$1 ').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(asked) ? asked : query;
}

/**
 * The kinds of the quoted spans: 'text' for a sentence, message or phrase the caller wants processed
 * (seventeenth round), and the kind of a span that is one value ('bob@acme.com', '221B Baker Street,
 * London NW1 6XE'):
 * what the caller holds, whose kind says which endpoints can take it (ranking step 11), although its words
 * stay out of the match as any quoted span's do: an address's "street" and "London" would match a reverse
 * geocoder's description as well as the geocoder that takes the address (sixteenth round).
 */
export function quotedValueKinds(query: string): ValueKind[] {
  const kinds = new Set<ValueKind>();
  for (const m of query.matchAll(QUOTED_SPAN)) {
    const inner = m[0].slice((m[1] as string).length + 1, -1);
    if (isQuotedValue(inner)) for (const kind of valueKindsOf(inner.toLowerCase())) kinds.add(kind);
    // A quoted sentence, message or phrase is a text the caller holds: asked of an endpoint that takes
    // text (speak it, translate it, score it, send it), not of one that takes a recording or an image.
    else kinds.add('text');
  }
  return [...kinds];
}
