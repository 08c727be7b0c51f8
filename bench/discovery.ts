// npm run bench:discovery — ranking quality on the dev set through the real app (in-memory PGlite,
// app.inject), then discovery at 10,000 endpoints over HTTP (discovery-scale.ts); a few minutes.
// Flags: --large (also 100,000 endpoints: many more minutes), --providers=1000,10000 (catalogue sizes,
// 10 endpoints each), --scale-only (skip the quality pass), --baseline=/work/main (measure that checkout's
// service first on the same catalogue and queries: before/after in one run; PostgreSQL only).
// Quality on other labelled sets (a folder with catalogue.json and queries.json, as ../shared/discovery/dev):
// --catalogue=<dir> (repeatable) or --unseen (every folder of bench/unseen, catalogues written blind, but
// those holding a SEALED file: `npm run eval:unseen`), --quality-only (skip the scale pass),
// --embeddings=off (words alone), -v (the answerable queries below EVAL_MISS_BELOW, default 0.5).
// EVAL_DUMP=<file> appends one JSON line per query (set, id, query, flagged, strength, first ten results,
// nDCG@10): two trees' dumps compare query by query.
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { passesFilters } from '../src/modules/discovery/ranking/filters.js';
import { type IndexedEndpoint, NO_CALLS_QUALITY } from '../src/modules/discovery/ranking/types.js';
import { createProviders, startBenchApp } from './bench-app.js';
import { plainBm25 } from './discovery-bm25.js';
import { DEV_DIR, devFilters, loadDevSet, toIndexedEndpoints } from './discovery-devset.js';
import { ndcgAt, recallAt, reciprocalRank } from './discovery-metrics.js';
import { scaleBenchmark } from './discovery-scale.js';

interface DiscoverResult {
  results: Array<{ provider_id: string; endpoint_slug: string; relevance_score: number }>;
  meta: { total_results: number; query_time_ms: number; match_quality?: string; match_strength?: number };
}

async function discover(app: FastifyInstance, payload: object, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url: '/v1/discover', payload, headers });
  if (res.statusCode !== 200) throw new Error(`discover: ${res.statusCode} ${res.body}`);
  return res.json() as DiscoverResult;
}

const fmt = (n: number, d = 2) => n.toFixed(d);

/**
 * The kind of each read no-answer query, `set|id` → near | outside (bench/discovery-noanswer-kinds.tsv):
 * a near miss is flagged far less often than a query plainly outside the catalogue, and the two are
 * reported apart.
 */
const NO_ANSWER_KINDS = new Map(
  readFileSync(path.join(import.meta.dirname, 'discovery-noanswer-kinds.tsv'), 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split('\t') as [string, string]),
);
type NoAnswerKind = 'near' | 'outside';
type FlagsByKind = Record<NoAnswerKind, { flagged: number; of: number }>;

/** The flag by kind, for a summary line: " (near misses 3/8, plainly outside 3/4)", or nothing unlabelled. */
const byKindNote = ({ near, outside }: FlagsByKind) =>
  near.of + outside.of > 0
    ? ` (near misses ${near.flagged}/${near.of}, plainly outside ${outside.flagged}/${outside.of})`
    : '';

/** A labelled set: a catalogue and its queries (../shared/discovery/README.md), from `dir`. */
interface LabelledSet {
  name: string;
  dir: string;
}

/**
 * Ranking quality through the real app (the service as it runs: every ranking step, the encoder unless
 * `embeddings` is off) on one labelled set, beside plain BM25 on the same catalogue.
 */
async function qualityOn(set: LabelledSet, embeddings: 'local' | 'off') {
  const { providers, queries } = loadDevSet(set.dir);
  const { app, close } = await startBenchApp({ SVC_EMBEDDINGS: embeddings });
  const endpoints = toIndexedEndpoints(providers);
  const bm25 = plainBm25(endpoints);
  const keyOf = (i: number) => `${endpoints[i]?.providerId}/${endpoints[i]?.slug}`;
  try {
    const refused = await createProviders(app, providers);
    if (refused.length > 0) throw new Error(`providers refused: ${refused.join('; ')}`);
    // Rank once every endpoint has its sentence vector (a deployment's steady state).
    await discover(app, { query: 'warm up' });
    while (app.discovery.embeddingsPending > 0) await new Promise((r) => setTimeout(r, 100));
    const sums = { ndcg: 0, recall: 0, mrr: 0, bm25: 0, counted: 0 };
    const noAnswer: string[] = [];
    const misses: string[] = [];
    let noAnswerFlagged = 0;
    let answerableFlagged = 0;
    const byKind: FlagsByKind = { near: { flagged: 0, of: 0 }, outside: { flagged: 0, of: 0 } };
    for (const q of queries) {
      const body = await discover(app, {
        query: q.query,
        ...(q.filters ? { filters: q.filters } : {}),
        limit: 50,
      });
      const ranked = body.results.map((r) => `${r.provider_id}/${r.endpoint_slug}`);
      const flagged = body.meta.match_quality !== 'good';
      const answerable = Object.keys(q.relevant).length > 0;
      const kind = NO_ANSWER_KINDS.get(`${set.name}|${q.id}`) as NoAnswerKind | undefined;
      if (process.env.EVAL_DUMP)
        appendFileSync(
          process.env.EVAL_DUMP,
          `${JSON.stringify({
            set: set.name,
            id: q.id,
            query: q.query,
            answerable,
            ...(kind ? { kind } : {}),
            flagged,
            strength: body.meta.match_strength ?? 0,
            ranked: ranked.slice(0, 10),
            ndcg: answerable ? ndcgAt(ranked, q.relevant) : null,
          })}\n`,
        );
      if (!answerable) {
        const top = body.results[0];
        if (flagged) noAnswerFlagged++;
        if (kind) {
          byKind[kind].of++;
          if (flagged) byKind[kind].flagged++;
        }
        noAnswer.push(
          `  ${q.id} top relevance ${fmt(top?.relevance_score ?? 0, 3)} match_quality ${body.meta.match_quality} ` +
            `(strength ${fmt(body.meta.match_strength ?? 0, 3)}) (${ranked[0] ?? 'no result'})  "${q.query}"`,
        );
        continue;
      }
      if (flagged) answerableFlagged++;
      const ndcg = ndcgAt(ranked, q.relevant);
      if (ndcg < Number(process.env.EVAL_MISS_BELOW ?? 0.5))
        misses.push(`  ${q.id} ${fmt(ndcg)} "${q.query}" → ${ranked.slice(0, 3).join(', ')}`);
      const allowed = (i: number) =>
        passesFilters(endpoints[i] as IndexedEndpoint, NO_CALLS_QUALITY, devFilters(q.filters));
      sums.bm25 += ndcgAt(bm25(q.query, allowed).map(keyOf), q.relevant);
      sums.ndcg += ndcg;
      sums.recall += recallAt(ranked, q.relevant);
      sums.mrr += reciprocalRank(ranked, q.relevant);
      sums.counted++;
    }
    const n = sums.counted;
    const endpointCount = providers.reduce((k, p) => k + p.endpoints.length, 0);
    console.log(
      `${set.name} (embeddings ${embeddings}): ${providers.length} providers, ${endpointCount} endpoints, ` +
        `${queries.length} queries (${n} answerable)`,
    );
    console.log(`  nDCG@10   ${fmt(sums.ndcg / n, 4)}   (plain BM25 ${fmt(sums.bm25 / n, 4)})`);
    console.log(`  recall@10 ${fmt(sums.recall / n, 4)}`);
    console.log(`  MRR       ${fmt(sums.mrr / n, 4)}`);
    if (verbose) {
      console.log(`answerable queries with nDCG@10 below ${process.env.EVAL_MISS_BELOW ?? 0.5}:`);
      for (const line of misses) console.log(line);
    }
    console.log('no-answer queries (their top relevance_score should be low):');
    for (const line of noAnswer) console.log(line);
    console.log(
      `match_quality weak/none: ${noAnswerFlagged}/${noAnswer.length} no-answer queries, ${answerableFlagged}/${n} answerable ones` +
        byKindNote(byKind),
    );
    return {
      ndcg: sums.ndcg / n,
      bm25: sums.bm25 / n,
      n,
      noAnswerFlagged,
      noAnswer: noAnswer.length,
      answerableFlagged,
      byKind,
    };
  } finally {
    await close();
  }
}

const args = process.argv.slice(2);
const sizesArg = args.find((a) => a.startsWith('--providers='));
// Providers of 10 endpoints each: 1,000 (10,000 endpoints) by default, and 10,000 (100,000) with --large.
const sizes = sizesArg
  ? sizesArg.slice('--providers='.length).split(',').map(Number)
  : args.includes('--large')
    ? [1_000, 10_000]
    : [1_000];
const baseline = args.find((a) => a.startsWith('--baseline='))?.slice('--baseline='.length);
const verbose = args.includes('-v');
const unseenDir = path.join(import.meta.dirname, 'unseen');
/** A catalogue kept unread for the next decision rule: `--unseen` leaves it out (name it with --catalogue). */
const isSealed = (dir: string) => {
  const sealed = existsSync(path.join(dir, 'SEALED'));
  if (sealed)
    console.log(`${path.basename(dir)}: sealed (bench/unseen/${path.basename(dir)}/SEALED), not run`);
  return sealed;
};
const sets: LabelledSet[] = [
  ...args.filter((a) => a.startsWith('--catalogue=')).map((a) => a.slice('--catalogue='.length)),
  ...(args.includes('--unseen')
    ? readdirSync(unseenDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => path.join(unseenDir, entry.name))
        .filter((dir) => !isSealed(dir))
    : []),
].map((dir) => ({ name: path.basename(dir), dir }));
if (sets.length === 0) sets.push({ name: 'dev set (where the threshold was calibrated)', dir: DEV_DIR });
const embeddings = args.includes('--embeddings=off') ? 'off' : 'local';
if (!args.includes('--scale-only')) {
  const results: Array<Awaited<ReturnType<typeof qualityOn>>> = [];
  for (const set of sets) results.push(await qualityOn(set, embeddings));
  if (results.length > 1) {
    const n = results.reduce((k, r) => k + r.n, 0);
    const mean = (key: 'ndcg' | 'bm25') => results.reduce((k, r) => k + r[key] * r.n, 0) / n;
    const sum = (key: 'noAnswerFlagged' | 'noAnswer' | 'answerableFlagged') =>
      results.reduce((k, r) => k + r[key], 0);
    const kindSum = (kind: NoAnswerKind) => ({
      flagged: results.reduce((k, r) => k + r.byKind[kind].flagged, 0),
      of: results.reduce((k, r) => k + r.byKind[kind].of, 0),
    });
    console.log(
      `pooled over ${results.length} sets (${n} answerable): nDCG@10 ${fmt(mean('ndcg'), 4)} (plain BM25 ${fmt(mean('bm25'), 4)}); ` +
        `weak/none ${sum('noAnswerFlagged')}/${sum('noAnswer')} no-answer, ${sum('answerableFlagged')}/${n} answerable` +
        byKindNote({ near: kindSum('near'), outside: kindSum('outside') }),
    );
  }
}
if (!args.includes('--quality-only')) await scaleBenchmark(sizes, baseline);
