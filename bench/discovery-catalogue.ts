// A synthetic catalogue of any size for the discovery scale benchmark, with the vocabulary of a real one:
// every endpoint is a rewording of a dev-set endpoint (../shared/discovery/dev) of the same category —
// some of its words dropped, some replaced by words other endpoints of that category use — plus a few
// words from the long tail of general English, so the vocabulary keeps growing with the catalogue
// (as real catalogues do) instead of one unique word per endpoint or 213 texts repeated.
import { loadWordVectors } from '../src/modules/discovery/ranking/vectors.js';
import { loadDevSet } from './discovery-devset.js';
import type { DevProvider } from './discovery-metrics.js';

/** Deterministic PRNG (mulberry32): the same seed gives the same catalogue and queries. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const words = (text: string) => text.toLowerCase().match(/[a-z][a-z0-9]+/g) ?? [];
const STOP = new Set(
  'a an and the of to in for on with by from or as at is are be it its this that into any such each per your'.split(
    ' ',
  ),
);

interface Pools {
  devProviders: DevProvider[];
  /** Content words of the category's endpoint descriptions and tags, with repetition (frequency kept). */
  byCategory: Map<string, string[]>;
  tagsByCategory: Map<string, string[]>;
  nameParts: string[];
  /** General English words ranked 3,000-40,000 by frequency (the long tail). */
  tail: string[];
}

function pools(): Pools {
  const { providers } = loadDevSet();
  const byCategory = new Map<string, string[]>();
  const tagsByCategory = new Map<string, string[]>();
  const nameParts = new Set<string>();
  for (const p of providers) {
    const pool = byCategory.get(p.category) ?? [];
    const tags = tagsByCategory.get(p.category) ?? [];
    for (const e of p.endpoints) {
      pool.push(...words(e.description).filter((w) => !STOP.has(w)));
      tags.push(...(e.tags ?? []));
    }
    tags.push(...(p.tags ?? []));
    byCategory.set(p.category, pool);
    tagsByCategory.set(p.category, tags);
    for (const part of p.name.split(/(?=[A-Z])|\s+/)) if (part.length > 2) nameParts.add(part);
  }
  const vectors = loadWordVectors();
  const all: Array<[string, number]> = [];
  for (const letter of 'abcdefghijklmnopqrstuvwxyz')
    for (const w of vectors.wordsStartingWith(letter)) {
      const rank = vectors.rank(w) ?? 0;
      if (rank >= 3_000 && rank < 40_000 && /^[a-z]{4,}$/.test(w)) all.push([w, rank]);
    }
  all.sort((a, b) => a[1] - b[1]);
  return {
    devProviders: providers,
    byCategory,
    tagsByCategory,
    nameParts: [...nameParts],
    tail: all.map(([w]) => w),
  };
}

/** A long-tail word, Zipf-like: the first of the tail far more often than the last. */
const tailWord = (r: Rand, tail: string[]) => tail[Math.floor(tail.length * r() ** 2.5)] as string;

function reword(r: Rand, text: string, pool: string[], tail: string[]): string {
  const out: string[] = [];
  for (const w of words(text)) {
    if (STOP.has(w)) {
      out.push(w);
      continue;
    }
    const x = r();
    if (x < 0.2) continue; // dropped
    out.push(x < 0.45 ? pick(r, pool) : w); // replaced by a word of the same category, or kept
  }
  const extra = 1 + Math.floor(r() * 2);
  for (let k = 0; k < extra; k++) out.splice(Math.floor(r() * (out.length + 1)), 0, tailWord(r, tail));
  const sentence = out.join(' ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

/** `providers` providers of `perProvider` endpoints each, in the admin API's provider shape. */
export function generateCatalogue(providers: number, perProvider = 10, seed = 21): DevProvider[] {
  const r = prng(seed);
  const p = pools();
  const out: DevProvider[] = [];
  for (let i = 0; i < providers; i++) {
    const base = pick(r, p.devProviders);
    const pool = p.byCategory.get(base.category) ?? [];
    const tags = p.tagsByCategory.get(base.category) ?? [];
    const sameCategory = p.devProviders
      .filter((d) => d.category === base.category)
      .flatMap((d) => d.endpoints);
    const slugs = new Set<string>();
    const endpoints = [];
    for (let k = 0; k < perProvider; k++) {
      const seedEndpoint = k < base.endpoints.length ? base.endpoints[k] : pick(r, sameCategory);
      if (!seedEndpoint) continue;
      const description = reword(r, seedEndpoint.description, pool, p.tail);
      let slug = words(description)
        .filter((w) => !STOP.has(w))
        .slice(0, 1 + Math.floor(r() * 2))
        .join('-')
        .slice(0, 40);
      if (!slug || slugs.has(slug)) slug = `${slug || 'op'}-${k}`;
      slugs.add(slug);
      endpoints.push({
        ...seedEndpoint,
        slug,
        description,
        tags: [...new Set([...(seedEndpoint.tags ?? []).slice(0, 1), pick(r, tags), pick(r, tags)])],
        pricing: { model: 'per_call', price_per_call_usdc: (0.0001 * 10 ** (r() * 2.7)).toFixed(6) },
      });
    }
    const name = `${pick(r, p.nameParts)}${pick(r, p.nameParts)} ${i}`;
    out.push({
      ...base,
      provider_id: `gen-${i}`,
      name,
      description: reword(r, base.description, pool, p.tail),
      tags: [...new Set([pick(r, tags), pick(r, tags)])],
      endpoints,
    });
  }
  return out;
}

/**
 * `count` distinct queries over the catalogue: a few words of some endpoint's description and tags in a
 * new order, sometimes with a word from elsewhere and a lead-in, like an agent's request. Distinct, so
 * that no request is answered from the cache.
 */
export function generateQueries(catalogue: DevProvider[], count: number, seed = 22): string[] {
  const r = prng(seed);
  const { queries } = loadDevSet();
  const leadIns = ['', '', 'find', 'api to', 'I need to', 'service that can', 'how do I', 'tool for'];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const q of queries) {
    seen.add(q.query.toLowerCase());
    out.push(q.query);
  }
  let attempts = 0;
  while (out.length < count && attempts++ < count * 20) {
    const provider = pick(r, catalogue);
    const endpoint = pick(r, provider.endpoints);
    const own = [...words(endpoint.description), ...(endpoint.tags ?? [])].filter((w) => !STOP.has(w));
    const chosen: string[] = [];
    const n = 2 + Math.floor(r() * 4);
    for (let k = 0; k < n; k++) chosen.push(pick(r, own));
    if (r() < 0.3) {
      const other = pick(r, pick(r, catalogue).endpoints);
      chosen.push(pick(r, words(other.description)));
    }
    const query = [pick(r, leadIns), ...chosen].filter(Boolean).join(' ');
    if (seen.has(query)) continue;
    seen.add(query);
    out.push(query);
  }
  return out;
}
