// Discovery service: ranked answers over the catalogue mirror (catalogue-mirror.ts: one in-memory index
// per app instance, kept current one provider at a time), with the sentence encoder's vectors fused in,
// and caches (docs/discovery.md): matching results 5 minutes, quality metrics 1 minute, ranked pages
// until either changes.
import type { AppDeps } from '../../deps.js';
import { CatalogueMirror, type Snapshot } from './catalogue-mirror.js';
import { EndpointVectors } from './endpoint-vectors.js';
import { queryAsRead, quotedValueKinds } from './ranking/as-read.js';
import { type DiscoveryFilters, filtersKey, hasFilters, slotFilter } from './ranking/filters.js';
import { lateOrder, type OrderedHits } from './ranking/late-interaction.js';
import { type MatchEvidence, matchEvidence, matchStrength } from './ranking/match-quality.js';
import { type AlignedBoosts, alignBoosts } from './ranking/order.js';
import { rankPage } from './ranking/page.js';
import { type Hits, hitsAtLeast, matchQuery, QUERY_TUNING } from './ranking/query.js';
import type { SearchIndex } from './ranking/search-index.js';
import { endpointKey, type IndexedEndpoint, NO_CALLS_QUALITY, type QualityMetrics } from './ranking/types.js';
import { type ValueKind, valueKindOrder, valueKindsOf } from './ranking/value-kinds.js';
import { RankingTurns } from './ranking-turns.js';
import { loadQuality, loadTextVectors, saveTextVectors } from './repo.js';
import {
  createSentenceEncoder,
  type Encoded,
  encodeWithLate,
  type SentenceEncoder,
  type WarningLog,
} from './sentence-encoder.js';
import { fuseRelevance, MEANING_BELOW_STRENGTH, wordsStrength } from './slot-vectors.js';

export const MATCH_CACHE_TTL_MS = 5 * 60_000;
export const QUALITY_CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 2_000;
/** A query waits at most this long for its sentence vector (encoder busy or stuck, API slow); then it
 *  is ranked by its words alone, and that answer is not cached. While the shipped model loads after a
 *  start (~1 s) a query waits for it (the encoder's own deadline bounds that). */
export const QUERY_VECTOR_WAIT_MS = 1_500;
/** At most this many cached hits in all (~8 MB). */
const MATCH_CACHE_MAX_HITS = 1_000_000;

interface CachedMatches {
  indices: Int32Array;
  relevance: Float32Array;
  /** The relevance they are ordered by, when late interaction reordered them (late-interaction.ts). */
  order?: Float32Array;
  /** How far the closest endpoint in meaning stood out, when the query was encoded (`Hits.standOut`). */
  standOut?: number;
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
  endpoint: IndexedEndpoint;
  quality: QualityMetrics;
  relevance: number;
}

export interface Discovered {
  results: DiscoveredEndpoint[];
  total: number;
  /** Strength of the best match in [0, 1] (match-quality.ts); undefined without a query. */
  strength: number | undefined;
}

export class DiscoveryService {
  private readonly mirror: CatalogueMirror;
  /** Bumped by every change of the index: cached matches and pages of an older generation are stale. */
  private generation = 0;
  private quality: { byKey: Map<string, QualityMetrics>; loadedAt: number; load: number } | undefined;
  private qualityLoads = 0;
  /** Quality and order boosts aligned with the index's slots, for one generation and quality load. */
  private aligned: { generation: number; load: number; slots: AlignedBoosts } | undefined;
  private matches = new Map<string, CachedMatches>();
  /** Hits held by the match cache, bounded so large catalogues cannot make it grow without limit. */
  private cachedHits = 0;
  /** Final pages by query + filters, cleared with every index change and every load of quality metrics. */
  private ranked = new Map<string, Discovered>();
  /** Rankings run one per event-loop turn, so that other I/O is not held up behind several. */
  private readonly turns = new RankingTurns();

  /** Sentence embeddings (SVC_EMBEDDINGS): the encoder, the catalogue's vectors, and queries' vectors. */
  private readonly encoder: SentenceEncoder | undefined;
  private readonly endpointVectors: EndpointVectors | undefined;
  private queryEmbeddings = new Map<string, Encoded>();

  constructor(
    private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'events' | 'config'>,
    private readonly log?: WarningLog,
  ) {
    const cfg = deps.config.discoveryEmbeddings;
    if (cfg) {
      this.encoder = createSentenceEncoder(cfg, log);
      // New vectors change rankings: cached answers go.
      const encoderId = this.encoder.id;
      const store = {
        load: (hashes: string[]) => loadTextVectors(deps.db.orm, encoderId, hashes),
        save: (rows: Parameters<typeof saveTextVectors>[2]) => saveTextVectors(deps.db.orm, encoderId, rows),
      };
      this.endpointVectors = new EndpointVectors(this.encoder, store, () => this.changed(), log);
    }
    this.mirror = new CatalogueMirror(
      deps,
      {
        changed: () => this.changed(),
        endpointsRead: (endpoints, all) => this.endpointVectors?.want(endpoints, all),
      },
      log,
    );
  }

  /** Stops listening, starts no more database work and stops the encoder (the app is closing). */
  async close() {
    this.mirror.close();
    this.endpointVectors?.close();
    await this.encoder?.close();
  }

  /**
   * Builds the index and loads the sentence encoder's model now (the server calls it once it listens),
   * so that the first query does not wait ~1 s for the model or seconds for a large catalogue's index.
   */
  async warm() {
    await this.mirror.current();
    await this.encoder?.encode(['warm up'], false);
  }

  /** Catalogue texts still waiting for their sentence vector (0 when embeddings are off). */
  get embeddingsPending(): number {
    return this.endpointVectors?.pending ?? 0;
  }

  private now() {
    return this.deps.clock.now().getTime();
  }

  private changed() {
    this.generation += 1;
    this.matches.clear();
    this.cachedHits = 0;
    this.ranked.clear();
  }

  /**
   * The query's sentence vector (and late-interaction rows, when the encoder gives them), or undefined
   * when the encoder failed or did not answer in time.
   */
  private async embedQuery(query: string): Promise<Encoded | undefined> {
    const encoder = this.encoder;
    if (!encoder) return undefined;
    const cached = this.queryEmbeddings.get(query);
    if (cached) return cached;
    const encoding = encodeWithLate(encoder, [query], true).then(([encoded]) => {
      // Kept even when it comes too late for this request: the next one asking the same finds it.
      if (encoded) remember(this.queryEmbeddings, query, encoded);
      return encoded;
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      if (!this.encoder.loaded) return await encoding;
      return await Promise.race([
        encoding,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no sentence vector within ${QUERY_VECTOR_WAIT_MS} ms`)),
            QUERY_VECTOR_WAIT_MS,
          );
        }),
      ]);
    } catch (err) {
      encoding.catch(() => {});
      this.log?.warn({ err }, 'sentence encoder failed for a query; ranked by its words alone');
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Words and meaning fused, and the best reordered by late interaction when the query has its rows. */
  private fuse(
    index: SearchIndex,
    query: Encoded | undefined,
    offline: Hits,
    allowed: ((slot: number) => boolean) | undefined,
  ): OrderedHits {
    const cfg = this.deps.config.discoveryEmbeddings;
    const vectors = this.endpointVectors;
    const encoder = this.encoder;
    if (!query || !vectors || !cfg || !encoder) return hitsAtLeast(offline, QUERY_TUNING.minRelevance);
    const slots = vectors.forSlots(index.endpoints, this.generation);
    const fused = fuseRelevance(
      index,
      offline,
      query.vector,
      slots,
      cfg.weight,
      encoder.cosineScale,
      allowed,
    );
    const order = query.late && lateOrder(fused, query.late, (slot) => slots.held[slot]?.late);
    return { ...fused, order };
  }

  /** Loads the quality metrics when the cached ones are older than a minute (or a fresh read is asked). */
  private async refreshQuality(fresh: boolean) {
    if (fresh || !this.quality || this.now() - this.quality.loadedAt >= QUALITY_CACHE_TTL_MS) {
      const byKey = await loadQuality(this.deps.db.orm);
      this.quality = { byKey, loadedAt: this.now(), load: ++this.qualityLoads };
      this.ranked.clear();
    }
    return this.quality;
  }

  /** Quality metrics of the index's slots and their order boosts, for the current generation. */
  private alignedQuality(index: SearchIndex, quality: { byKey: Map<string, QualityMetrics>; load: number }) {
    const { byKey, load } = quality;
    let aligned = this.aligned;
    if (aligned?.generation !== this.generation || aligned.load !== load) {
      // Same quality metrics: only the slots an update changed are computed again.
      const previous = aligned?.load === load ? aligned.slots : undefined;
      const slots = alignBoosts(
        index.endpoints,
        (e) => byKey.get(endpointKey(e.providerId, e.slug)) ?? NO_CALLS_QUALITY,
        previous,
      );
      aligned = { generation: this.generation, load, slots };
      this.aligned = aligned;
    }
    return { qualities: aligned.slots.qualities, boosts: aligned.slots.boosts, load };
  }

  /** Cached matches of the query for the current generation, if any (never for a fresh request). */
  private cachedMatches(key: string, fresh: boolean): CachedMatches | undefined {
    const cached = this.matches.get(key);
    if (
      !fresh &&
      cached &&
      cached.generation === this.generation &&
      this.now() - cached.at < MATCH_CACHE_TTL_MS
    ) {
      return cached;
    }
    return undefined;
  }

  /**
   * `offline`: every candidate's offline relevance, computed while the query was being encoded; used when
   * the index has not changed since (same generation).
   */
  private matchesFor(
    snapshot: Snapshot,
    { key, matchKey, quotedKinds }: { key: string; matchKey: string; quotedKinds: ValueKind[] },
    fresh: boolean,
    queryEmbedding: Encoded | undefined,
    offline: { generation: number; hits: Hits } | undefined,
    keep: boolean,
    allowed: ((slot: number) => boolean) | undefined,
  ): CachedMatches {
    const cached = this.cachedMatches(matchKey, fresh);
    if (cached) return cached;
    const found: OrderedHits = this.endpointVectors
      ? this.fuse(
          snapshot.index,
          queryEmbedding,
          offline?.generation === this.generation
            ? offline.hits
            : matchQuery(snapshot.index, key, allowed, 0),
          allowed,
        )
      : matchQuery(snapshot.index, key, allowed);
    // Values of a known kind in the query, quoted or not, move the order toward endpoints that take them
    // (value-kinds.ts).
    const kinds = [...new Set([...valueKindsOf(key), ...quotedKinds])];
    const order = valueKindOrder(found, kinds, (slot) => snapshot.index.endpoints[slot]) ?? found.order;
    // Stored compactly (8 or 12 bytes a hit); the oldest entries go first when the budget is spent.
    const hits: CachedMatches = {
      indices: found.slots,
      relevance: Float32Array.from(found.relevance),
      order: order && Float32Array.from(order),
      standOut: found.standOut,
      generation: this.generation,
      at: this.now(),
    };
    if (!keep) return hits;
    const previous = this.matches.get(matchKey);
    if (previous) {
      this.matches.delete(matchKey);
      this.cachedHits -= previous.indices.length;
    }
    for (const [oldKey, old] of this.matches) {
      if (
        this.matches.size < CACHE_MAX_ENTRIES &&
        this.cachedHits + found.slots.length <= MATCH_CACHE_MAX_HITS
      )
        break;
      this.matches.delete(oldKey);
      this.cachedHits -= old.indices.length;
    }
    this.matches.set(matchKey, hits);
    this.cachedHits += found.slots.length;
    return hits;
  }

  /** Ranked endpoints for a query and/or filters: the page asked for and the number of all matches. */
  async discover(req: DiscoverRequest): Promise<Discovered> {
    const firstSeen = await this.mirror.current(req.fresh);
    const quality = await this.refreshQuality(req.fresh);
    // A quoted payload is what the caller wants processed, not what it asks for; "text +1 …" asks to send an
    // SMS (as-read.ts, ranking step 0).
    const query = req.query === undefined ? undefined : queryAsRead(req.query);
    const key = query === undefined ? undefined : normaliseQuery(query);
    // A quoted value's words are left out, its kind is not (as-read.ts): the matches are cached by both.
    const quotedKinds = req.query === undefined ? [] : quotedValueKinds(req.query);
    // Filters narrow the catalogue before matching, so that the relevance floor (a share of the best
    // match's relevance) is set by the best match that passes them, not by one they remove (twentieth
    // round); the matches are then cached by the filters as well.
    const filtered = hasFilters(req.filters);
    const matchKey =
      key === undefined
        ? undefined
        : [
            key,
            ...(quotedKinds.length > 0 ? [quotedKinds.join(' ')] : []),
            ...(filtered ? [filtersKey(req.filters)] : []),
          ].join('\n');
    const allowedIn = filtered
      ? filterMemo((ix) => slotFilter(ix.endpoints, this.alignedQuality(ix, quality).qualities, req.filters))
      : () => undefined;
    // A query to rank waits for its turn (ranking-turns.ts); cached matches do not queue.
    if (matchKey !== undefined && !this.cachedMatches(matchKey, req.fresh)) await this.turns.take();
    const gateIndex = (this.mirror.live ?? firstSeen).index;
    const offline =
      key !== undefined && this.endpointVectors && !this.cachedMatches(matchKey ?? key, req.fresh)
        ? { generation: this.generation, hits: matchQuery(gateIndex, key, allowedIn(gateIndex), 0) }
        : undefined;
    const evidenceOf = evidenceMemo(query);
    // The query is encoded only when its words alone answer weakly (slot-vectors.ts).
    const wantsMeaning =
      offline !== undefined &&
      wordsStrength(offline.hits, (slot) => evidenceOf(gateIndex, slot)) < MEANING_BELOW_STRENGTH;
    if (wantsMeaning) await this.endpointVectors?.settled();
    const queryEmbedding = wantsMeaning && key !== undefined ? await this.embedQuery(key) : undefined;
    // Ranked without the sentence vector it should have had: answered, but not cached.
    const degraded = wantsMeaning && queryEmbedding === undefined;
    // Fusing with the sentence vector scans every slot's vector: a second turn.
    if (wantsMeaning) await this.turns.take();
    // No await below: the index may change between requests (incremental updates, a swap), never during
    // the ranking of one.
    const snapshot = this.mirror.live ?? firstSeen;
    const { index } = snapshot;
    const { qualities, boosts, load } = this.alignedQuality(index, quality);
    const rankedKey = JSON.stringify(
      // Case kept: match strength reads capitalised names in the query as values (match-quality.ts).
      [
        this.generation,
        load,
        (query ?? '').trim().replace(/\s+/g, ' '),
        quotedKinds,
        filtersKey(req.filters),
      ],
    );
    const cached = req.fresh ? undefined : this.ranked.get(rankedKey);
    if (cached && req.limit <= RANKED_CACHE_DEPTH) {
      return { ...cached, results: cached.results.slice(0, req.limit) };
    }

    const hits =
      key === undefined
        ? undefined
        : this.matchesFor(
            snapshot,
            { key, matchKey: matchKey ?? key, quotedKinds },
            req.fresh,
            queryEmbedding,
            offline,
            !degraded,
            allowedIn(snapshot.index),
          );
    const { top, total } = rankPage({
      endpoints: index.endpoints,
      alive: index.alive,
      qualities,
      boosts,
      matches: hits,
      filters: req.filters,
      depth: Math.max(req.limit, RANKED_CACHE_DEPTH),
    });
    // How well the first result answers the query, judged on the words asked (not on the order score).
    const best = top[0];
    const strength =
      query === undefined
        ? undefined
        : best
          ? matchStrength(best.relevance, evidenceOf(index, best.at), hits?.standOut)
          : 0;
    const found: Discovered = { results: top, total, strength };
    if (!degraded) remember(this.ranked, rankedKey, found);
    return { ...found, results: top.slice(0, req.limit) };
  }
}

/**
 * The query's match evidence for a slot of an index, kept for the request: the gate's best words match is
 * usually the first result as well, so its evidence is computed once.
 */
function evidenceMemo(query: string | undefined) {
  let last: { index: SearchIndex; slot: number; evidence: MatchEvidence } | undefined;
  return (index: SearchIndex, slot: number): MatchEvidence => {
    if (last?.index !== index || last.slot !== slot)
      last = { index, slot, evidence: matchEvidence(index, query ?? '', slot) };
    return last.evidence;
  };
}

/** The request's filter of an index's slots, built once for the request (the gate and the ranking
 *  usually read the same index). */
function filterMemo(build: (index: SearchIndex) => (slot: number) => boolean) {
  let last: { index: SearchIndex; allowed: (slot: number) => boolean } | undefined;
  return (index: SearchIndex) => {
    if (last?.index !== index) last = { index, allowed: build(index) };
    return last.allowed;
  };
}

/** The query as it is matched, encoded and cached: trimmed, lower case, single spaces. */
export function normaliseQuery(query: string): string {
  return query.trim().toLowerCase().replace(/\s+/g, ' ');
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

/** The discovery state of one app: created once by buildApp(), closed with the app. */
export function createDiscovery(
  deps: Pick<AppDeps, 'db' | 'clock' | 'events' | 'config'>,
  log?: WarningLog,
): DiscoveryService {
  return new DiscoveryService(deps, log);
}
