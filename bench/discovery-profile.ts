// The per-query ranking cost at scale without HTTP or a database: builds the index of a generated
// catalogue (discovery-catalogue.ts) and ranks distinct generated queries with the pure functions, as the
// service does for an uncached request (matchQuery, then the match evidence of the best hit). Prints the
// time per query and the index's heap; `--dump=file` writes every query's hits (slot and relevance, full
// precision) and evidence, so two versions of the ranking code can be compared for identical output.
// Profile with `node --cpu-prof --import tsx bench/discovery-profile.ts`.
//
//   npx tsx bench/discovery-profile.ts [--providers=1000] [--queries=2000] [--dump=file] [--changes] [--alloc]
//
// `--changes` also replaces 50 providers one at a time (incremental updates) before ranking, so the
// dump covers an index that was updated in place, not only a fresh build. `--alloc` prints the bytes
// each query allocates, garbage included, by function (the times are then the profiler's, not the code's).
import { writeFileSync } from 'node:fs';
import { type HeapProfiler, Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { matchEvidence } from '../src/modules/discovery/ranking/match-quality.js';
import { bestHit, hitList, matchQuery } from '../src/modules/discovery/ranking/query.js';
import { buildSearchIndex, replaceProviderEndpoints } from '../src/modules/discovery/ranking/search-index.js';
import { loadWordVectors } from '../src/modules/discovery/ranking/vectors.js';
import { generateCatalogue, generateQueries } from './discovery-catalogue.js';
import { toIndexedEndpoints } from './discovery-devset.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const providers = Number(arg('providers', '1000'));
const queryCount = Number(arg('queries', '2000'));
const dump = arg('dump', '');
const changes = process.argv.includes('--changes');
const alloc = process.argv.includes('--alloc');

/**
 * V8's sampling heap profiler over the queries, counting objects already collected too: the bytes each
 * query allocates (garbage included), by function. Garbage is what grows a busy service's heap.
 */
async function startAllocationSampling() {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  // The two include flags are newer than @types/node's protocol types.
  const params: HeapProfiler.StartSamplingParameterType & Record<string, unknown> = {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  };
  await session.post('HeapProfiler.startSampling', params);
  return {
    async report(perQueries: number) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      const byFunction = new Map<string, number>();
      let total = 0;
      const walk = (node: HeapProfiler.SamplingHeapProfileNode) => {
        const { functionName, url } = node.callFrame;
        const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}`;
        byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
        total += node.selfSize;
        for (const child of node.children) walk(child);
      };
      walk(profile.head);
      const kb = (bytes: number) => (bytes / perQueries / 1024).toFixed(1);
      console.log(`allocated per query (sampled, garbage included): ${kb(total)} KB; by function:`);
      for (const [key, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 8))
        console.log(`  ${kb(bytes).padStart(6)} KB  ${key}`);
      session.disconnect();
    },
  };
}

const catalogue = generateCatalogue(providers);
const endpoints = toIndexedEndpoints(catalogue);
const vectors = loadWordVectors();
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
let t = performance.now();
const index = buildSearchIndex(endpoints, vectors);
const buildMs = performance.now() - t;
global.gc?.();
const heapIndex = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;

if (changes) {
  // Providers rewritten from another generated catalogue (another seed): their texts change.
  const other = toIndexedEndpoints(generateCatalogue(60, 10, 99));
  const t0 = performance.now();
  for (let k = 0; k < 50; k++) {
    const id = catalogue[k * 13]?.provider_id as string;
    const replacement = other
      .filter((e) => e.providerId === `gen-${k}`)
      .map((e) => ({ ...e, providerId: id }));
    replaceProviderEndpoints(index, id, k % 10 === 9 ? [] : replacement);
  }
  console.log(`50 providers replaced one at a time: ${((performance.now() - t0) / 50).toFixed(2)} ms each`);
}

const queries = generateQueries(catalogue, queryCount);
const allocation = alloc ? await startAllocationSampling() : undefined;
const lines: string[] = [];
const times: number[] = [];
let hitsTotal = 0;
t = performance.now();
for (const query of queries) {
  const q0 = performance.now();
  const hits = matchQuery(index, query);
  const best = bestHit(hits);
  const evidence = best >= 0 ? matchEvidence(index, query, hits.slots[best] as number) : undefined;
  times.push(performance.now() - q0);
  hitsTotal += hits.slots.length;
  if (dump) {
    const sorted = hitList(hits).sort((a, b) => a.index - b.index);
    lines.push(
      JSON.stringify({
        query,
        hits: sorted.map((h) => `${h.index}:${h.relevance}`).join(' '),
        evidence,
      }),
    );
  }
}
const totalMs = performance.now() - t;
if (allocation) await allocation.report(queries.length);
times.sort((a, b) => a - b);
const at = (p: number) => (times[Math.min(times.length - 1, Math.floor(times.length * p))] ?? 0).toFixed(2);
console.log(
  `${endpoints.length} endpoints (${index.vocab.size} stems): built in ${buildMs.toFixed(0)} ms, index heap ` +
    `${heapIndex.toFixed(0)} MB${global.gc ? '' : ' (run with --expose-gc for an exact figure)'}`,
);
console.log(
  `${queries.length} queries${changes ? ' after 50 provider replacements' : ''}: ` +
    `${(totalMs / queries.length).toFixed(2)} ms mean, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms; ` +
    `${(hitsTotal / queries.length).toFixed(0)} hits per query`,
);
if (dump) {
  writeFileSync(dump, `${lines.join('\n')}\n`);
  console.log(`hits written to ${dump}`);
}
