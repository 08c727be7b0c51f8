// Discovery service: one in-memory index per instance, rebuilt when the catalogue changes (at once on
// `catalog.changed` from this instance; within VERSION_CHECK_MS for changes made by other instances),
// plus the caches of SPEC.md 8.4: matching results 5 minutes, quality metrics 1 minute.
import type { AppDeps } from '../../deps.js';
import { type EndpointEmbeddings, embedEndpoints, embedTexts, similarities } from './embeddings.js';
import { type DiscoveryFilters, hasFilters, passesFilters } from './ranking/filters.js';
import { matchEvidence, matchStrength } from './ranking/match-quality.js';
import { type EndpointBoosts, endpointBoosts } from './ranking/order.js';
import { matchQuery, QUERY_TUNING, type RelevanceHit } from './ranking/query.js';
import { buildSearchIndex, type SearchIndex } from './ranking/search-index.js';
import { selectTop } from './ranking/top.js';
import {
  type CatalogueEndpoint,
  endpointKey,
  NO_CALLS_QUALITY,
  type QualityMetrics,
} from './ranking/types.js';
import { loadWordVectors, type WordVectors } from './ranking/vectors.js';
import { catalogueFingerprint, loadCatalogue, loadQuality } from './repo.js';

export const MATCH_CACHE_TTL_MS = 5 * 60_000;
export const QUALITY_CACHE_TTL_MS = 60_000;
/** How often an instance asks the database whether another instance changed the catalogue. */
export const VERSION_CHECK_MS = 5_000;
const CACHE_MAX_ENTRIES = 2_000;
/** At most this many cached hits in all (~8 MB). */
const MATCH_CACHE_MAX_HITS = 1_000_000;

interface CachedMatches {
  indices: Int32Array;
  relevance: Float32Array;
  generation: number;
  at: number;
}
/** Ranked pages are cached up to the largest limit a request may ask for. */
const RANKED_CACHE_DEPTH = 50;

export interface DiscoverRequest {
  query: string | undefined;
  filters: DiscoveryFilters;
  limit: number;
  /** Skip every cache (an authenticated caller sent Cache-Control: no-cache). */
  fresh: boolean;
}

export interface DiscoveredEndpoint {
  endpoint: CatalogueEndpoint;
  quality: QualityMetrics;
  relevance: number;
}

export interface Discovered {
  results: DiscoveredEndpoint[];
  total: number;
  /** Strength of the best match in [0, 1] (match-quality.ts); undefined without a query. */
  strength: number | undefined;
}

interface Snapshot {
  index: SearchIndex;
  fingerprint: string;
  generation: number;
  /** Value of the change counter when the rebuild started reading the catalogue. */
  changes: number;
  /** Endpoint embeddings from the optional embeddings API (undefined: offline ranking only). */
  embeddings: EndpointEmbeddings | undefined;
}

/** Embedding cosine mapped linearly from [floor, ceil] onto [0, 1] (OpenAI text-embedding-3 scale). */
const EMBEDDING_FLOOR = 0.2;
const EMBEDDING_CEIL = 0.6;

export interface DiscoveryLogger {
  warn(obj: object, msg: string): void;
}

let sharedVectors: WordVectors | undefined;
/** The word vectors are read-only and a few MB: load them once per process. */
export function wordVectors(): WordVectors {
  sharedVectors ??= loadWordVectors();
  return sharedVectors;
}

export class DiscoveryService {
  private snapshot: Snapshot | undefined;
  private rebuilding: Promise<Snapshot> | undefined;
  /** Incremented by every known catalogue change; a snapshot older than the last change is stale. */
  private changes = 0;
  private generation = 0;
  private lastVersionCheck = -Infinity;
  private quality: { byKey: Map<string, QualityMetrics>; loadedAt: number; load: number } | undefined;
  private qualityLoads = 0;
  /** Quality and order boosts aligned with the snapshot's endpoints, for one load of quality metrics. */
  private aligned:
    | { generation: number; load: number; qualities: QualityMetrics[]; boosts: EndpointBoosts }
    | undefined;
  private matches = new Map<string, CachedMatches>();
  /** Hits held by the match cache, bounded so large catalogues cannot make it grow without limit. */
  private cachedHits = 0;
  /** Final pages by query + filters, cleared with every new index and every load of quality metrics. */
  private ranked = new Map<string, Discovered>();

  private queryEmbeddings = new Map<string, Float32Array>();

  constructor(
    private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'events' | 'config'>,
    private readonly log?: DiscoveryLogger,
  ) {
    deps.events.on('catalog.changed', () => this.invalidate());
  }

  /** Forget the index and cached matches; the next request rebuilds from the database. */
  invalidate() {
    this.changes += 1;
    this.matches.clear();
    this.cachedHits = 0;
    this.ranked.clear();
  }

  private now() {
    return this.deps.clock.now().getTime();
  }

  private async rebuild(): Promise<Snapshot> {
    const changes = this.changes;
    const fingerprint = await catalogueFingerprint(this.deps.db.orm);
    const endpoints = await loadCatalogue(this.deps.db.orm);
    const index = buildSearchIndex(endpoints, wordVectors());
    const embeddings = await this.embedCatalogue(endpoints);
    this.generation += 1;
    this.matches.clear();
    this.cachedHits = 0;
    this.ranked.clear();
    this.lastVersionCheck = this.now();
    this.snapshot = { index, fingerprint, generation: this.generation, changes, embeddings };
    return this.snapshot;
  }

  private async embedCatalogue(endpoints: CatalogueEndpoint[]): Promise<EndpointEmbeddings | undefined> {
    const cfg = this.deps.config.discoveryEmbeddings;
    if (!cfg) return undefined;
    try {
      return await embedEndpoints(cfg, endpoints);
    } catch (err) {
      this.log?.warn({ err }, 'embeddings API failed; discovery ranks offline only');
      return undefined;
    }
  }

  private async embedQuery(query: string): Promise<Float32Array | undefined> {
    const cfg = this.deps.config.discoveryEmbeddings;
    if (!cfg) return undefined;
    const cached = this.queryEmbeddings.get(query);
    if (cached) return cached;
    try {
      const [vector] = await embedTexts(cfg, [query]);
      if (vector) remember(this.queryEmbeddings, query, vector);
      return vector;
    } catch (err) {
      this.log?.warn({ err }, 'embeddings API failed for a query; ranked offline only');
      return undefined;
    }
  }

  /** Offline relevance fused with embedding similarity: (1 - w) * offline + w * embedding score. */
  private async fuse(snapshot: Snapshot, query: string, offline: RelevanceHit[]): Promise<RelevanceHit[]> {
    const cfg = this.deps.config.discoveryEmbeddings;
    const qv = snapshot.embeddings && cfg ? await this.embedQuery(query) : undefined;
    if (!qv || !snapshot.embeddings || !cfg)
      return offline.filter((h) => h.relevance >= QUERY_TUNING.minRelevance);
    const sims = similarities(qv, snapshot.embeddings);
    const fused = new Map<number, number>();
    for (const h of offline) fused.set(h.index, (1 - cfg.weight) * h.relevance);
    sims.forEach((cos, i) => {
      const score = Math.min(1, Math.max(0, (cos - EMBEDDING_FLOOR) / (EMBEDDING_CEIL - EMBEDDING_FLOOR)));
      if (score > 0) fused.set(i, (fused.get(i) ?? 0) + cfg.weight * score);
    });
    let best = 0;
    for (const r of fused.values()) best = Math.max(best, r);
    const floor = Math.max(QUERY_TUNING.minRelevance, QUERY_TUNING.relativeFloor * best);
    return [...fused].filter(([, r]) => r >= floor).map(([index, relevance]) => ({ index, relevance }));
  }

  /** The current index; rebuilt when stale, and checked against the database every few seconds. */
  async currentIndex(forceCheck = false): Promise<Snapshot> {
    const known = this.snapshot;
    if (
      known &&
      known.changes === this.changes &&
      (forceCheck || this.now() - this.lastVersionCheck >= VERSION_CHECK_MS)
    ) {
      this.lastVersionCheck = this.now();
      const fingerprint = await catalogueFingerprint(this.deps.db.orm);
      if (fingerprint !== known.fingerprint) this.invalidate();
    }
    // A change made while a rebuild was reading the catalogue needs one more rebuild: a request that
    // starts after a change must see it.
    while (!this.snapshot || this.snapshot.changes !== this.changes) {
      this.rebuilding ??= this.rebuild().finally(() => {
        this.rebuilding = undefined;
      });
      await this.rebuilding;
    }
    return this.snapshot;
  }

  /** Quality metrics of the snapshot's endpoints (index-aligned) and their order boosts. */
  private async qualityMetrics(snapshot: Snapshot, fresh: boolean) {
    if (fresh || !this.quality || this.now() - this.quality.loadedAt >= QUALITY_CACHE_TTL_MS) {
      const byKey = await loadQuality(this.deps.db.orm);
      this.quality = { byKey, loadedAt: this.now(), load: ++this.qualityLoads };
      this.ranked.clear();
    }
    const { byKey, load } = this.quality;
    if (this.aligned?.generation !== snapshot.generation || this.aligned.load !== load) {
      const { endpoints } = snapshot.index;
      const qualities = endpoints.map(
        (e) => byKey.get(endpointKey(e.providerId, e.slug)) ?? NO_CALLS_QUALITY,
      );
      const boosts = endpointBoosts(
        endpoints.map((e) => e.priceCredits),
        qualities,
      );
      this.aligned = { generation: snapshot.generation, load, qualities, boosts };
    }
    return this.aligned;
  }

  private async matchesFor(snapshot: Snapshot, query: string, fresh: boolean): Promise<CachedMatches> {
    const key = normaliseQuery(query);
    const cached = this.matches.get(key);
    if (
      !fresh &&
      cached &&
      cached.generation === snapshot.generation &&
      this.now() - cached.at < MATCH_CACHE_TTL_MS
    ) {
      return cached;
    }
    const found = snapshot.embeddings
      ? await this.fuse(snapshot, key, matchQuery(snapshot.index, key, undefined, 0))
      : matchQuery(snapshot.index, key);
    // Stored compactly (8 bytes a hit); the oldest entries go first when the budget is spent.
    const hits: CachedMatches = {
      indices: Int32Array.from(found, (h) => h.index),
      relevance: Float32Array.from(found, (h) => h.relevance),
      generation: snapshot.generation,
      at: this.now(),
    };
    const previous = this.matches.get(key);
    if (previous) {
      this.matches.delete(key);
      this.cachedHits -= previous.indices.length;
    }
    for (const [oldKey, old] of this.matches) {
      if (this.matches.size < CACHE_MAX_ENTRIES && this.cachedHits + found.length <= MATCH_CACHE_MAX_HITS)
        break;
      this.matches.delete(oldKey);
      this.cachedHits -= old.indices.length;
    }
    this.matches.set(key, hits);
    this.cachedHits += found.length;
    return hits;
  }

  /** Ranked endpoints for a query and/or filters: the page asked for and the number of all matches. */
  async discover(req: DiscoverRequest): Promise<Discovered> {
    const snapshot = await this.currentIndex(req.fresh);
    const { qualities, boosts, load } = await this.qualityMetrics(snapshot, req.fresh);
    const rankedKey = JSON.stringify(
      // Case kept: match strength reads capitalised names in the query as values (match-quality.ts).
      [snapshot.generation, load, (req.query ?? '').trim().replace(/\s+/g, ' '), req.filters],
      (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
    );
    const cached = req.fresh ? undefined : this.ranked.get(rankedKey);
    if (cached && req.limit <= RANKED_CACHE_DEPTH) {
      return { ...cached, results: cached.results.slice(0, req.limit) };
    }

    const { endpoints } = snapshot.index;
    const hits = req.query ? await this.matchesFor(snapshot, req.query, req.fresh) : undefined;
    const count = hits ? hits.indices.length : endpoints.length;
    const filtered = hasFilters(req.filters);
    const passing: Ranked[] = [];
    for (let c = 0; c < count; c++) {
      const i = hits ? (hits.indices[c] as number) : c;
      const endpoint = endpoints[i] as CatalogueEndpoint;
      const quality = qualities[i] as QualityMetrics;
      if (filtered && !passesFilters(endpoint, quality, req.filters)) continue;
      // Filters alone: every endpoint passing them answers the request fully (relevance 1).
      const relevance = hits ? (hits.relevance[c] as number) : 1;
      const score = hits ? relevance * (boosts.withQuery[i] as number) : (boosts.filtersOnly[i] as number);
      passing.push({ endpoint, quality, relevance, score, at: i });
    }
    const top = selectTop(passing, Math.max(req.limit, RANKED_CACHE_DEPTH), compareRanked);
    // How well the first result answers the query, judged on the words asked (not on the order score).
    const best = top[0];
    const strength =
      req.query === undefined
        ? undefined
        : best
          ? matchStrength(best.relevance, matchEvidence(snapshot.index, req.query, best.at))
          : 0;
    const found: Discovered = { results: top, total: passing.length, strength };
    remember(this.ranked, rankedKey, found);
    return { ...found, results: top.slice(0, req.limit) };
  }
}

function normaliseQuery(query: string): string {
  return query.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** `at`: the endpoint's position in the snapshot's index. */
type Ranked = DiscoveredEndpoint & { score: number; at: number };

/** Best first: order score, then cheaper, then more used, then a stable key. */
function compareRanked(a: Ranked, b: Ranked) {
  return (
    b.score - a.score ||
    (a.endpoint.priceCredits < b.endpoint.priceCredits
      ? -1
      : a.endpoint.priceCredits > b.endpoint.priceCredits
        ? 1
        : 0) ||
    b.quality.totalCalls - a.quality.totalCalls ||
    endpointKey(a.endpoint.providerId, a.endpoint.slug).localeCompare(
      endpointKey(b.endpoint.providerId, b.endpoint.slug),
    )
  );
}

/** Map used as a small LRU: re-inserting moves a key to the end, the oldest goes first when full. */
function remember<V>(cache: Map<string, V>, key: string, value: V) {
  cache.delete(key);
  if (cache.size >= CACHE_MAX_ENTRIES) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, value);
}
