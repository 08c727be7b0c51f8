// Tuning loop without the HTTP app: ranks the dev set with the pure ranking functions and prints the
// metrics. `npx tsx bench/discovery-offline.ts [vectors.bin] [-v] [--set=tunable=value ...]`
import { QUERY_TUNING } from '../src/modules/discovery/ranking/query.js';
import {
  buildSearchIndex,
  FIELD_WEIGHTS,
  LEXICAL_BOOSTS,
} from '../src/modules/discovery/ranking/search-index.js';
import { loadWordVectors } from '../src/modules/discovery/ranking/vectors.js';
import { evaluate, loadDevSet, toIndexedEndpoints } from './discovery-devset.js';

const vectorsArg = process.argv.find((a) => a.endsWith('.bin'));
const verbose = process.argv.includes('-v');
for (const arg of process.argv.filter((a) => a.startsWith('--set='))) {
  const [name, value] = arg.slice(6).split('=');
  if (name && name in QUERY_TUNING) (QUERY_TUNING as Record<string, number>)[name] = Number(value);
  if (name?.startsWith('lex.')) (LEXICAL_BOOSTS as Record<string, number>)[name.slice(4)] = Number(value);
  if (name && name in FIELD_WEIGHTS) (FIELD_WEIGHTS as Record<string, number>)[name] = Number(value);
}

const { providers, queries } = loadDevSet();
const endpoints = toIndexedEndpoints(providers);
const t0 = performance.now();
const index = buildSearchIndex(endpoints, loadWordVectors(vectorsArg));
console.log(`index of ${endpoints.length} endpoints in ${(performance.now() - t0).toFixed(0)} ms`);
const result = evaluate(index, queries);
const answeredTops: number[] = [];
for (const o of result.outcomes) {
  const q = o.query;
  if (Object.keys(q.relevant).length === 0) {
    console.log(`${q.id} no-answer top=${o.topRelevance.toFixed(3)} ${o.ranked[0] ?? '-'} | ${q.query}`);
    continue;
  }
  answeredTops.push(o.topRelevance);
  if (verbose || o.ndcg < 0.7) {
    console.log(
      `${q.id} ndcg=${o.ndcg.toFixed(2)} top=${o.topRelevance.toFixed(3)} | ${q.query} -> ${o.ranked.slice(0, 4).join(', ')}`,
    );
  }
}
answeredTops.sort((a, b) => a - b);
const at = (f: number) => answeredTops[Math.floor(answeredTops.length * f)]?.toFixed(3);
console.log(`top relevance of answerable queries: min ${at(0)} p10 ${at(0.1)} median ${at(0.5)}`);
const noAnswerTops = result.outcomes
  .filter((o) => Object.keys(o.query.relevant).length === 0)
  .map((o) => o.topRelevance.toFixed(2));
console.log(`top relevance of no-answer queries: ${noAnswerTops.join(', ')}`);
// Guard against overfitting: a change is kept only when it helps both halves (odd / even query ids).
const half = (parity: number) =>
  result.outcomes.filter(
    (o) => Object.keys(o.query.relevant).length > 0 && Number(o.query.id.replace(/\D/g, '')) % 2 === parity,
  );
const summary = (label: string, outcomes: typeof result.outcomes) => {
  const mean = (f: (o: (typeof outcomes)[number]) => number) =>
    (outcomes.reduce((s, o) => s + f(o), 0) / Math.max(outcomes.length, 1)).toFixed(4);
  console.log(
    `${label} nDCG@10 ${mean((o) => o.ndcg)}  recall@10 ${mean((o) => o.recall)}  MRR ${mean((o) => o.rr)}`,
  );
};
summary('odd ', half(1));
summary('even', half(0));
summary('all ', [...half(1), ...half(0)]);
