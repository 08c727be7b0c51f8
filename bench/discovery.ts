// npm run bench:discovery — ranking quality on the dev set and POST /v1/discover latency at 10,000
// endpoints, through the real app (createDeps + buildApp, in-memory PGlite, app.inject).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { loadDevSet } from './discovery-devset.js';
import { type DevProvider, ndcgAt, recallAt, reciprocalRank } from './discovery-metrics.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const TARGET_ENDPOINTS = 10_000;
const LATENCY_REQUESTS = 2_000;

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

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const fmt = (n: number, d = 2) => n.toFixed(d);

async function qualityOnDevSet() {
  const { providers, queries } = loadDevSet();
  const { app, close } = await startApp();
  try {
    await createProviders(app, providers);
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

/** Replicas of the dev providers with their own ids and prices until the catalogue has 10,000 endpoints. */
function synthesise(providers: DevProvider[]): DevProvider[] {
  const out: DevProvider[] = [];
  let endpoints = 0;
  for (let copy = 0; endpoints < TARGET_ENDPOINTS; copy++) {
    for (const p of providers) {
      if (endpoints >= TARGET_ENDPOINTS) break;
      out.push({
        ...p,
        provider_id: `${p.provider_id}-${copy}`,
        name: `${p.name} ${copy}`,
        endpoints: p.endpoints.map((e, i) => ({
          ...e,
          pricing: {
            model: 'per_call',
            price_per_call_usdc: (
              Number(e.pricing.price_per_call_usdc) *
              (1 + ((copy * 7 + i) % 13) / 10)
            ).toFixed(6),
          },
        })),
      });
      endpoints += p.endpoints.length;
    }
  }
  return out;
}

async function latencyAt10k() {
  const { providers, queries } = loadDevSet();
  const big = synthesise(providers);
  const endpointCount = big.reduce((s, p) => s + p.endpoints.length, 0);
  const { app, close } = await startApp();
  try {
    let t = performance.now();
    await createProviders(app, big);
    console.log(
      `\nlatency: ${big.length} providers, ${endpointCount} endpoints loaded through the admin API in ${fmt((performance.now() - t) / 1000, 1)} s`,
    );
    t = performance.now();
    await discover(app, { query: 'warm up' });
    console.log(
      `  first request (reads the catalogue and builds the index): ${fmt(performance.now() - t, 0)} ms`,
    );

    // Every request a cache miss: each round appends one more "?" (part of the cache key, not a word).
    const cold: number[] = [];
    const serverCold: number[] = [];
    for (let k = 0; k < LATENCY_REQUESTS; k++) {
      const q = queries[k % queries.length];
      if (!q) continue;
      const query = `${q.query} ${'?'.repeat(1 + Math.floor(k / queries.length))}`;
      const started = performance.now();
      const body = await discover(app, { query, ...(q.filters ? { filters: q.filters } : {}) });
      cold.push(performance.now() - started);
      serverCold.push(body.meta.query_time_ms);
    }
    const warm: number[] = [];
    for (let k = 0; k < LATENCY_REQUESTS; k++) {
      const q = queries[k % queries.length];
      if (!q) continue;
      const started = performance.now();
      await discover(app, { query: q.query, ...(q.filters ? { filters: q.filters } : {}) });
      warm.push(performance.now() - started);
    }
    const filtersOnly: number[] = [];
    for (let k = 0; k < 200; k++) {
      const started = performance.now();
      await discover(app, { filters: { category: 'ai_ml', max_price_per_call: 0.01 + k / 1e6 } });
      filtersOnly.push(performance.now() - started);
    }
    for (const [name, xs] of [
      ['uncached queries (match cache miss)', cold],
      ['  of which server query_time_ms', serverCold],
      ['cached queries (match cache hit)', warm],
      ['filters only', filtersOnly],
    ] as const) {
      const sorted = [...xs].sort((a, b) => a - b);
      console.log(
        `  ${name}: p50 ${fmt(pct(sorted, 0.5))} ms  p99 ${fmt(pct(sorted, 0.99))} ms  (n=${xs.length})`,
      );
    }
  } finally {
    await close();
  }
}

await qualityOnDevSet();
await latencyAt10k();
