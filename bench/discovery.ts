// npm run bench:discovery — ranking quality on the dev set through the real app (in-memory PGlite,
// app.inject), then discovery at 10,000 endpoints over HTTP (discovery-scale.ts); a few minutes.
// Flags: --large (also 100,000 endpoints: many more minutes), --providers=1000,10000 (catalogue sizes,
// 10 endpoints each), --scale-only (skip the dev set), --baseline=/work/main (measure that checkout's
// service first on the same catalogue and queries: before/after in one run; PostgreSQL only).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { loadDevSet } from './discovery-devset.js';
import { type DevProvider, ndcgAt, recallAt, reciprocalRank } from './discovery-metrics.js';
import { scaleBenchmark } from './discovery-scale.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';

async function startApp() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const config = loadConfig({
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: ADMIN,
    SVC_ENCRYPTION_KEY: 'b'.repeat(64),
    SVC_SAMPLE_PROVIDERS: 'off',
    SVC_RATE_LIMIT_MULTIPLIER: '1000000',
    LOG_LEVEL: 'silent',
  });
  const deps = await createDeps(config, { inMemoryDb: true });
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await closeDeps(deps);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function createProviders(app: FastifyInstance, providers: DevProvider[]) {
  for (const p of providers) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/admin/providers',
      headers: { authorization: `Bearer ${ADMIN}` },
      payload: { ...p, base_url: 'http://127.0.0.1:9' },
    });
    if (res.statusCode !== 201) throw new Error(`provider ${p.provider_id}: ${res.statusCode} ${res.body}`);
  }
}

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

async function qualityOnDevSet() {
  const { providers, queries } = loadDevSet();
  const { app, close } = await startApp();
  try {
    await createProviders(app, providers);
    // Rank once every endpoint has its sentence vector (a deployment's steady state).
    await discover(app, { query: 'warm up' });
    while (app.discovery.embeddingsPending > 0) await new Promise((r) => setTimeout(r, 100));
    let ndcg = 0;
    let recall = 0;
    let mrr = 0;
    let counted = 0;
    const noAnswer: string[] = [];
    let noAnswerFlagged = 0;
    let answerableFlagged = 0;
    for (const q of queries) {
      const body = await discover(app, {
        query: q.query,
        ...(q.filters ? { filters: q.filters } : {}),
        limit: 50,
      });
      const ranked = body.results.map((r) => `${r.provider_id}/${r.endpoint_slug}`);
      const flagged = body.meta.match_quality !== 'good';
      if (Object.keys(q.relevant).length === 0) {
        const top = body.results[0];
        if (flagged) noAnswerFlagged++;
        noAnswer.push(
          `  ${q.id} top relevance ${fmt(top?.relevance_score ?? 0, 3)} match_quality ${body.meta.match_quality} ` +
            `(strength ${fmt(body.meta.match_strength ?? 0, 3)}) (${ranked[0] ?? 'no result'})  "${q.query}"`,
        );
        continue;
      }
      if (flagged) answerableFlagged++;
      ndcg += ndcgAt(ranked, q.relevant);
      recall += recallAt(ranked, q.relevant);
      mrr += reciprocalRank(ranked, q.relevant);
      counted++;
    }
    console.log(`dev set: ${providers.length} providers, ${queries.length} queries (${counted} answerable)`);
    console.log(`  nDCG@10   ${fmt(ndcg / counted, 4)}`);
    console.log(`  recall@10 ${fmt(recall / counted, 4)}`);
    console.log(`  MRR       ${fmt(mrr / counted, 4)}`);
    console.log('no-answer queries (their top relevance_score should be low):');
    for (const line of noAnswer) console.log(line);
    console.log(
      `match_quality weak/none: ${noAnswerFlagged}/${noAnswer.length} no-answer queries, ` +
        `${answerableFlagged}/${counted} answerable ones (the dev set is where the threshold was calibrated)`,
    );
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
if (!args.includes('--scale-only')) await qualityOnDevSet();
await scaleBenchmark(sizes, baseline);
