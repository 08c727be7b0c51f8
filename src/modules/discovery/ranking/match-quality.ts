// How well the best match answers the query: the evidence behind `meta.match_quality`. A query with no
// right answer in the catalogue still has a best match (the ranking always finds the closest thing), so
// its relevance alone does not tell "nothing fits" from "this fits"; what does is whether the words that
// carry the query's meaning are found in that endpoint at all.
import { REQUEST_LEAD } from './as-read.js';
import { analyse, neighboursOf, QUERY_TUNING } from './query.js';
import type { SearchIndex, VocabEntry } from './search-index.js';
import { contentWords, valueWords } from './text.js';

export interface MatchEvidence {
  /** Weighted share of the query's words the endpoint contains (or a word of similar meaning), in [0, 1]. */
  coverage: number;
  /** Weight share of the heaviest query word the endpoint does not cover (0 when all are covered). */
  uncovered: number;
  /** Same as coverage, with a similar word credited linearly from its cosine (0.3 -> 0, 0.7 -> 1). */
  looseCoverage: number;
  /** Cosine of the asked words' mean vector with the endpoint's mean vector. */
  meaning: number;
  /** Weight share of the asked words the catalogue does not contain at all (no endpoint has the stem). */
  unknown: number;
  /**
   * Credit the endpoint gives the word the query starts with, when that word is an ask: an imperative's
   * verb ("book a flight", "track my package") names the action wanted. 1 when the query starts with a
   * stop word ("how", "is", "what"), a value, or nothing to judge.
   */
  lead: number;
  /**
   * Whether the query asks for an action with a side effect ("place a market order", "mint an NFT",
   * "point the A record at …") and the endpoint is read-only (GET): it can report, not act.
   */
  readOnlyForAction: boolean;
}

function contains(entry: VocabEntry, doc: number): boolean {
  // `docs` is ascending (endpoints are indexed in order).
  let lo = 0;
  let hi = entry.docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = entry.docs[mid] as number;
    if (v === doc) return true;
    if (v < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Words that open a request for information rather than name an action; general English, not tuned. */
const REQUEST_WORDS = new Set([
  'find',
  'show',
  'list',
  'fetch',
  'look',
  'lookup',
  'search',
  'retrieve',
  'obtain',
  'return',
  'provide',
  'display',
  'query',
  'check',
  'help',
  'kindly',
  'hey',
]);

/** Verbs whose imperative asks for a change in the world (an order, a booking, a record); general English. */
const ACTION_VERBS = new Set(
  'book reserve order buy purchase sell pay place mint register create delete remove cancel submit transfer publish deploy subscribe unsubscribe schedule set update point add upload bid stake withdraw deposit file apply renew rent hire post send'.split(
    ' ',
  ),
);
/** An action verb where a request's verb stands (`REQUEST_LEAD`, as-read.ts). */
const ACTION_REQUEST = new RegExp(`(?:${REQUEST_LEAD})(?:${[...ACTION_VERBS].join('|')})\\b`);

/** Whether the query asks for an action with a side effect (an imperative of `ACTION_VERBS`). */
export function asksForAction(query: string): boolean {
  return ACTION_REQUEST.test(query.toLowerCase());
}

/** Evidence that endpoint `doc` answers `query`: per query word, the best credit the endpoint gives it. */
export function matchEvidence(index: SearchIndex, query: string, doc: number): MatchEvidence {
  const t = QUERY_TUNING;
  const asked = analyse(index, query);
  const values = valueWords(query);
  const credits: Array<{ weight: number; credit: number; loose: number; known: boolean }> = [];
  // The query's first token is an ask when it is a content word (not "how", "is", "the") that names an
  // action, not a request for information any endpoint answers ("find", "show", "fetch").
  const first = contentWords(query.trim().split(/\s+/, 1)[0] ?? '')[0];
  const leading = first !== undefined && !REQUEST_WORDS.has(first) ? first : undefined;
  let lead = 1;
  const dims = index.vectors.dims;
  const qv = new Float32Array(dims);
  for (const w of asked) {
    let credit = 0;
    let loose = 0;
    const exact = index.vocab.get(w.stem);
    if (exact && contains(exact, doc)) {
      credit = 1;
      loose = 1;
    } else {
      for (const { entry, sim } of neighboursOf(index, w)) {
        if (!contains(entry, doc)) continue;
        credit = Math.max(
          credit,
          t.softScale * ((sim - t.softMinSimilarity) / (1 - t.softMinSimilarity)) ** t.softPower,
        );
        loose = Math.max(loose, Math.min(1, (sim - 0.3) / 0.4));
      }
    }
    // An unmatched value (a place, a name, a number) or a fragment ("re" of "we're") is not an ask.
    if (credit === 0 && (values.has(w.word) || w.word.length <= 2)) continue;
    if (leading !== undefined && credits.length === 0 && w === asked[0]) lead = credit;
    credits.push({ weight: w.weight, credit, loose, known: (exact?.docs.length ?? 0) > 0 });
    if (w.vector)
      for (let d = 0; d < dims; d++) qv[d] = (qv[d] as number) + w.weight * (w.vector[d] as number);
  }
  const total = credits.reduce((s, c) => s + c.weight, 0);
  const readOnlyForAction = index.endpoints[doc]?.method === 'GET' && asksForAction(query);
  if (total <= 0)
    return {
      coverage: 0,
      uncovered: 1,
      looseCoverage: 0,
      meaning: 0,
      unknown: 1,
      lead: 0,
      readOnlyForAction,
    };
  let covered = 0;
  let unknown = 0;
  let looseCovered = 0;
  let uncovered = 0;
  for (const { weight, credit, loose, known } of credits) {
    covered += weight * credit;
    if (!known) unknown += weight;
    looseCovered += weight * loose;
    uncovered = Math.max(uncovered, (weight * (1 - credit)) / total);
  }
  let dot = 0;
  let norm = 0;
  for (let d = 0; d < dims; d++) {
    dot += (qv[d] as number) * (index.docVectors.matrix[doc * dims + d] as number);
    norm += (qv[d] as number) ** 2;
  }
  const meaning = norm > 0 ? dot / Math.sqrt(norm) : 0;
  return {
    coverage: covered / total,
    uncovered,
    looseCoverage: looseCovered / total,
    meaning,
    unknown: unknown / total,
    lead,
    readOnlyForAction,
  };
}

/**
 * A query led by an ask the best match does not cover ("book a flight" answered by a flight-weather
 * endpoint) keeps this share of its strength: the action wanted is what is missing. Chosen from 0.3–0.5
 * on the extra queries' no-answer misses (docs/discovery-history.md, fifth round), not fitted on folds.
 */
export const LEAD_FLOOR = 0.4;

/**
 * A query asking for an action with a side effect, answered first by a read-only (GET) endpoint, keeps
 * this share of its strength: the endpoint can look things up, not do what was asked ("book me a seat"
 * answered by a departures board). It moved the flag's trade-off rather than along it: on catalogues
 * written blind, 7 -> 14 of 24 no-answer queries flagged for one more of 96 answerable (thirteenth round,
 * docs/discovery-history.md). The encoder's gate reads the strength too, so such a query is encoded.
 */
export const READ_ONLY_FOR_ACTION = 0.35;

/**
 * Strength of the best match in [0, 1]: the geometric mean of its relevance and of how much of what the
 * query asks for it covers, scaled down when the word the query starts with is an ask it does not cover,
 * when the query asks for an action the endpoint, read-only, cannot take, and when nothing in the
 * catalogue stands out in meaning (`standOut`, given when the query was encoded; `STAND_OUT_FULL`).
 * Either of the first two alone separates "nothing fits" from "this fits" worse
 * (docs/discovery-history.md, "Match quality").
 */
export function matchStrength(relevance: number, evidence: MatchEvidence, standOut?: number): number {
  const lead = LEAD_FLOOR + (1 - LEAD_FLOOR) * evidence.lead;
  const action = evidence.readOnlyForAction ? READ_ONLY_FOR_ACTION : 1;
  return Math.sqrt(Math.max(0, relevance) * evidence.coverage) * lead * action * standOutFactor(standOut);
}

/**
 * How far the endpoint closest to the query in meaning stands out from the rest of the catalogue (the
 * sentence encoder's best cosine with the query less the mean of its cosines with every endpoint;
 * `fuseRelevance`) at which the strength is kept whole; below it, the strength is scaled by the share
 * reached. A query nothing in the catalogue answers is about as far in meaning from every endpoint, even
 * when a few of its words ("track", "arrive") match one; a query something answers has an endpoint that
 * stands out from the rest. Without the encoder's vector (words alone, a query the words answer
 * strongly, the encoder late) the strength is kept whole. Twentieth round (rule O,
 * docs/discovery-history.md): on the 8,970 read queries it flags more plainly-outside queries at the same
 * share of answerable ones.
 */
export const STAND_OUT_FULL = 0.3;

function standOutFactor(standOut: number | undefined): number {
  return standOut === undefined ? 1 : Math.min(1, Math.max(0, standOut) / STAND_OUT_FULL);
}

/**
 * Below this strength the best match is reported as weak (`meta.match_quality: 'weak'`). Calibrated by
 * 5-fold cross-validation on the dev set (`npm run eval:discovery`): on each training split, the middle
 * between the strongest no-answer query and the weakest answerable ones that may be flagged (2.5 %);
 * the folds gave 0.13-0.18, all 60 dev queries 0.167 on the words alone; on the ranking fused with the
 * shipped sentence encoder (the default) 0.06-0.23 and 0.186; with the leading-ask factor (LEAD_FLOOR)
 * 0.097-0.181, all dev queries 0.141, kept rounded down so that it flags no more answerable queries
 * than calibrated. Since the sixteenth round (eighteenth rule, docs/discovery-history.md): 0.125, the
 * largest value of a 0.005 grid that flags at most 5 % of the answerable queries of the fifty-two
 * catalogues written blind (4.7 %; 0.14 flagged 5.6 %), judged on four catalogues written after it.
 * Since the twentieth round (rule O, the strength scaled by how far meaning stands out): 0.10, which
 * flags 3.8 % of the answerable queries of the 110 read blind catalogues and 4.0 % of the eighteen
 * dev-catalogue sets (0.125 without the scaling: 3.4 % and 4.4 %).
 */
export const WEAK_MATCH_BELOW = 0.1;

export type MatchQuality = 'good' | 'weak' | 'none';

export function matchQualityOf(strength: number | undefined): MatchQuality {
  if (strength === undefined || strength <= 0) return 'none';
  return strength < WEAK_MATCH_BELOW ? 'weak' : 'good';
}
