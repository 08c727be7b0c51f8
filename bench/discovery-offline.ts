// Tuning loop without the HTTP app: ranks the dev set with the pure ranking functions and prints the
// metrics per query. `npx tsx bench/discovery-offline.ts [vectorsFile] [-v]`
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { usdcNumberToCredits, usdcToCredits } from '../src/lib/money.js';
import { passesFilters } from '../src/modules/discovery/ranking/filters.js';
import { QUERY_TUNING, scoreQuery } from '../src/modules/discovery/ranking/query.js';
import { buildSearchIndex } from '../src/modules/discovery/ranking/search-index.js';
import { type CatalogueEndpoint, NO_CALLS_QUALITY } from '../src/modules/discovery/ranking/types.js';
import { loadWordVectors } from '../src/modules/discovery/ranking/vectors.js';
import { type DevProvider, type DevQuery, ndcgAt, recallAt, reciprocalRank } from './discovery-metrics.js';

const devDir = path.join(import.meta.dirname, '../../shared/discovery/dev');
const providers = JSON.parse(readFileSync(path.join(devDir, 'catalogue.json'), 'utf8')) as DevProvider[];
const queries = JSON.parse(readFileSync(path.join(devDir, 'queries.json'), 'utf8')) as DevQuery[];
const vectorsArg = process.argv.find((a) => a.endsWith('.bin'));
const verbose = process.argv.includes('-v');
// --set name=value overrides a tunable for an experiment.
for (const arg of process.argv.filter((a) => a.startsWith('--set='))) {
  const [name, value] = arg.slice(6).split('=');
  if (name && name in QUERY_TUNING) (QUERY_TUNING as Record<string, number>)[name] = Number(value);
}
const answeredTops: number[] = [];

const endpoints: CatalogueEndpoint[] = providers.flatMap((p) =>
  p.endpoints.map((e) => ({
    providerId: p.provider_id,
    providerName: p.name,
    providerDescription: p.description,
    category: p.category,
    providerTags: p.tags ?? [],
    slug: e.slug,
    method: e.method,
    description: e.description,
    tags: e.tags ?? [],
    parameters: e.parameters,
    responseSchema: e.response_schema ?? null,
    priceCredits: usdcToCredits(e.pricing.price_per_call_usdc),
  })),
);

const t0 = performance.now();
const vectors = loadWordVectors(vectorsArg);
const index = buildSearchIndex(endpoints, vectors);
console.log(`index of ${endpoints.length} endpoints in ${(performance.now() - t0).toFixed(0)} ms`);

let ndcg = 0;
let recall = 0;
let mrr = 0;
let counted = 0;
for (const q of queries) {
  const f = q.filters ?? {};
  const filters = {
    ...(typeof f.category === 'string' ? { category: f.category } : {}),
    ...(Array.isArray(f.tags) ? { tags: f.tags as string[] } : {}),
    ...(typeof f.max_price_per_call === 'number'
      ? { maxPriceCredits: usdcNumberToCredits(f.max_price_per_call) }
      : {}),
    ...(typeof f.method === 'string' ? { method: f.method.toUpperCase() } : {}),
  };
  const hits = scoreQuery(index, q.query, (i) =>
    passesFilters(endpoints[i] as CatalogueEndpoint, NO_CALLS_QUALITY, filters),
  );
  const ranked = hits.map((h) => `${endpoints[h.index]?.providerId}/${endpoints[h.index]?.slug}`);
  const top = hits[0]?.relevance ?? 0;
  if (Object.keys(q.relevant).length === 0) {
    console.log(`${q.id} no-answer top=${top.toFixed(3)} ${ranked[0] ?? '-'}  | ${q.query}`);
    continue;
  }
  answeredTops.push(top);
  const n = ndcgAt(ranked, q.relevant);
  ndcg += n;
  recall += recallAt(ranked, q.relevant);
  mrr += reciprocalRank(ranked, q.relevant);
  counted++;
  if (verbose || n < 0.7)
    console.log(
      `${q.id} ndcg=${n.toFixed(2)} top=${top.toFixed(3)} | ${q.query} -> ${ranked.slice(0, 4).join(', ')}`,
    );
}
console.log(
  `nDCG@10 ${(ndcg / counted).toFixed(4)}  recall@10 ${(recall / counted).toFixed(4)}  MRR ${(mrr / counted).toFixed(4)}`,
);
answeredTops.sort((a, b) => a - b);
console.log(
  `top relevance of answerable queries: min ${answeredTops[0]?.toFixed(3)} p10 ${answeredTops[Math.floor(answeredTops.length / 10)]?.toFixed(3)} median ${answeredTops[Math.floor(answeredTops.length / 2)]?.toFixed(3)}`,
);
