// Sentence vectors of the catalogue's endpoints, per app, kept current in the background: an endpoint
// added or changed is queued, looked up in the database (`endpoint_text_vectors`: each text is encoded
// once, not by every instance at every start), else encoded in small batches (sentence-encoder.ts) and
// stored, and then fused into the ranking. Vectors are kept by endpoint text, so a rebuild or a re-read of
// an unchanged endpoint costs nothing. Until its vector arrives an endpoint ranks by its offline
// relevance alone (`fuseRelevance`).
import { createHash } from 'node:crypto';
import { Int8Rows } from './int8-rows.js';
import { QUERY_TUNING, type RelevanceHit } from './ranking/query.js';
import type { SearchIndex } from './ranking/search-index.js';
import type { IndexedEndpoint } from './ranking/types.js';
import type { SentenceEncoder } from './sentence-encoder.js';

/** Texts per encoder batch: small, so that a query waits for at most one (~0.5 s of one core). */
const BATCH = 16;
/** Texts looked up in the database at once, then encoded if missing. Small enough that instances
 *  starting together on a new catalogue mostly find each other's work (see `nextBatch`). */
const LOOKUP_BATCH = 64;
/** After a failed batch, try again this much later. */
const RETRY_MS = 5_000;
/** A request waits for the queue when at most this many texts wait (a change: well under a second);
 *  behind a bulk build it ranks at once, with the vectors there are. */
const WAIT_FOR_AT_MOST = 64;

/** Embedding cosine mapped linearly from [floor, ceil] onto [0, 1]; the same scale measured best for the
 *  shipped encoder and for OpenAI's text-embedding-3 models. */
export const EMBEDDING_FLOOR = 0.2;
export const EMBEDDING_CEIL = 0.6;

/** A unit vector stored as int8 (512 bytes for 512 dimensions): cosine survives per-vector scaling. */
export interface StoredVector {
  q: Int8Array;
  scale: number;
}

export function quantise(v: Float32Array): StoredVector {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  // float4 precision, as stored: a vector read back ranks exactly as the one encoded here.
  const scale = Math.fround(max > 0 ? max / 127 : 1);
  const q = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) q[i] = Math.round((v[i] as number) / scale);
  return { q, scale };
}

/**
 * The vectors of an index's slots in one int8 matrix (row i = slot i; rows of slots without a vector are
 * zero and left out through `has`), scanned in WebAssembly SIMD (int8-rows.ts). Kept current per index
 * generation by `slotVectors`, which rewrites only the rows whose vector changed.
 */
export interface SlotVectors {
  generation: number;
  dims: number;
  rows: Int8Rows;
  scales: Float32Array;
  has: Uint8Array;
  /** The vector each row holds (to tell a changed slot by reference). */
  held: Array<StoredVector | undefined>;
}

/** Spare rows when the matrix must grow, so that additions one provider at a time rarely copy it all. */
const GROWTH = 1.25;

/**
 * The slots' vectors for this generation of the index. `previous` (the last generation's) is updated in
 * place when it can hold the slots: only rows whose vector changed are copied, so a change of one
 * provider costs a pass of reference checks, not a copy of the matrix (at 100,000 endpoints ~0.1–0.3 s).
 */
export function slotVectors(
  endpoints: IndexedEndpoint[],
  vectorOf: (e: IndexedEndpoint) => StoredVector | undefined,
  generation: number,
  previous?: SlotVectors,
): SlotVectors {
  let dims = previous?.dims ?? 0;
  if (dims === 0) {
    for (const e of endpoints) {
      const v = e ? vectorOf(e) : undefined;
      if (v) {
        dims = v.q.length;
        break;
      }
    }
  }
  const n = endpoints.length;
  const out =
    previous && previous.dims === dims && previous.rows.rows >= n
      ? previous
      : emptySlots(dims, Math.max(n, Math.ceil((previous ? n * GROWTH : n) / 16) * 16));
  out.generation = generation;
  const { matrix, stride } = out.rows;
  for (let i = 0; i < out.rows.rows; i++) {
    const e = i < n ? endpoints[i] : undefined;
    const found = e ? vectorOf(e) : undefined;
    const v = found && found.q.length === dims ? found : undefined;
    if (v === out.held[i]) continue;
    out.held[i] = v;
    if (v) matrix.set(v.q, i * stride);
    else matrix.fill(0, i * stride, (i + 1) * stride);
    out.scales[i] = v?.scale ?? 0;
    out.has[i] = v ? 1 : 0;
  }
  return out;
}

function emptySlots(dims: number, capacity: number): SlotVectors {
  return {
    generation: -1,
    dims,
    rows: new Int8Rows(capacity, dims),
    scales: new Float32Array(capacity),
    has: new Uint8Array(capacity),
    held: new Array<StoredVector | undefined>(capacity).fill(undefined),
  };
}

/** The text encoded for an endpoint: what it does, in its provider's context. */
export function endpointText(e: IndexedEndpoint): string {
  return `${e.slug.replace(/-/g, ' ')}: ${e.description} Tags: ${e.tags.join(', ')}. Provider: ${e.providerName} (${e.category.replace(/_/g, ' ')}) ${e.providerDescription}`;
}

export interface EndpointVectorsLogger {
  warn(obj: object, msg: string): void;
}

/** Where encoded vectors are kept between starts and shared between instances (repo.ts). */
export interface VectorStore {
  load(hashes: string[]): Promise<Map<string, { components: Int8Array; scale: number }>>;
  save(vectors: Array<{ hash: string; components: Int8Array; scale: number }>): Promise<void>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Up to LOOKUP_BATCH waiting texts from a random place in the queue: instances that start together on
 * the same new catalogue then work on different parts of it and read each other's stored vectors,
 * instead of encoding the same texts in lockstep.
 */
function nextBatch(waiting: Set<string>): string[] {
  const all = [...waiting];
  if (all.length <= LOOKUP_BATCH) return all;
  const start = Math.floor(Math.random() * (all.length - LOOKUP_BATCH + 1));
  return all.slice(start, start + LOOKUP_BATCH);
}

export class EndpointVectors {
  private readonly byText = new Map<string, StoredVector>();
  private readonly textOf = new WeakMap<IndexedEndpoint, string>();
  private readonly waiting = new Set<string>();
  private draining = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly encoder: SentenceEncoder,
    private readonly store: VectorStore | undefined,
    /** Called when the queue has drained (new vectors change rankings: drop cached answers). */
    private readonly onSettled: () => void,
    private readonly log?: EndpointVectorsLogger,
  ) {}

  private text(e: IndexedEndpoint): string {
    let t = this.textOf.get(e);
    if (t === undefined) {
      t = endpointText(e);
      this.textOf.set(e, t);
    }
    return t;
  }

  vectorOf(e: IndexedEndpoint): StoredVector | undefined {
    return this.byText.get(this.text(e));
  }

  private slots: SlotVectors | undefined;

  /** The vectors of the index's slots as one matrix, for the index generation given (kept until it changes). */
  forSlots(endpoints: IndexedEndpoint[], generation: number): SlotVectors {
    if (this.slots?.generation !== generation)
      this.slots = slotVectors(endpoints, (e) => this.vectorOf(e), generation, this.slots);
    return this.slots;
  }

  /** Texts still waiting to be encoded. */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Resolves when the queue is empty, so that a request made after a change ranks with the changed
   * endpoints' vectors; at once when the queue is long (a bulk build) or the encoder is failing.
   */
  settled(): Promise<void> {
    const n = this.waiting.size;
    if (n === 0 || n > WAIT_FOR_AT_MOST || this.retry || this.closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    void this.drain();
    return done;
  }

  /** Queues the endpoints without a vector. `all`: this is the whole catalogue; forget other texts. */
  want(endpoints: Iterable<IndexedEndpoint>, all = false) {
    const texts = new Set<string>();
    for (const e of endpoints) texts.add(this.text(e));
    if (all) {
      for (const t of this.byText.keys()) if (!texts.has(t)) this.byText.delete(t);
      for (const t of this.waiting) if (!texts.has(t)) this.waiting.delete(t);
    }
    for (const t of texts) if (!this.byText.has(t)) this.waiting.add(t);
    void this.drain();
  }

  private async drain() {
    if (this.draining || this.closed || this.retry) return;
    this.draining = true;
    let added = 0;
    try {
      while (this.waiting.size > 0 && !this.closed) {
        const texts = nextBatch(this.waiting);
        const hashes = texts.map(sha256);
        const stored = await this.lookUp(hashes);
        const missing: Array<{ text: string; hash: string }> = [];
        texts.forEach((text, i) => {
          const hash = hashes[i] as string;
          const found = stored.get(hash);
          if (found) {
            if (this.waiting.delete(text)) this.byText.set(text, { q: found.components, scale: found.scale });
            added += 1;
          } else missing.push({ text, hash });
        });
        for (let start = 0; start < missing.length && !this.closed; start += BATCH) {
          const batch = missing.slice(start, start + BATCH);
          const vectors = await this.encoder.encode(
            batch.map((m) => m.text),
            false,
          );
          const rows = batch.map((m, i) => ({ ...m, vector: quantise(vectors[i] as Float32Array) }));
          for (const r of rows) {
            // A text dropped from the catalogue meanwhile (`want(…, all)`) is not kept in memory.
            if (this.waiting.delete(r.text)) this.byText.set(r.text, r.vector);
          }
          added += rows.length;
          await this.keep(rows.map((r) => ({ hash: r.hash, components: r.vector.q, scale: r.vector.scale })));
        }
      }
    } catch (err) {
      if (!this.closed) {
        this.log?.warn({ err, waiting: this.waiting.size }, 'sentence encoder failed; retrying later');
        this.retry = setTimeout(() => {
          this.retry = undefined;
          void this.drain();
        }, RETRY_MS);
        this.retry.unref();
      }
    } finally {
      this.draining = false;
      if (added > 0 && !this.closed) this.onSettled();
      for (const resolve of this.waiters.splice(0)) resolve();
    }
  }

  /** Stored vectors; a database problem only means encoding them again. */
  private async lookUp(hashes: string[]) {
    try {
      return (await this.store?.load(hashes)) ?? new Map();
    } catch (err) {
      this.log?.warn({ err }, 'reading stored sentence vectors failed; encoding them');
      return new Map();
    }
  }

  private async keep(rows: Array<{ hash: string; components: Int8Array; scale: number }>) {
    try {
      await this.store?.save(rows);
    } catch (err) {
      this.log?.warn({ err }, 'storing sentence vectors failed; they stay in memory');
    }
  }

  close() {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

/**
 * Offline relevance fused with embedding similarity: (1 − w)·offline + w·score, where the score maps the
 * cosine from [EMBEDDING_FLOOR, EMBEDDING_CEIL] onto [0, 1]. Any endpoint may enter through its embedding
 * alone; one without a vector yet keeps its offline relevance. `offline` holds every candidate (minimum
 * relevance 0); the usual floors (QUERY_TUNING) apply to the fused relevance.
 */
export function fuseRelevance(
  index: SearchIndex,
  offline: RelevanceHit[],
  query: Float32Array,
  vectors: SlotVectors,
  weight: number,
  allowed?: (i: number) => boolean,
): RelevanceHit[] {
  if (vectors.dims === 0 || query.length !== vectors.dims)
    return offline.filter((h) => h.relevance >= QUERY_TUNING.minRelevance);
  const { alive } = index;
  const n = index.endpoints.length;
  // Dense per slot: a Map of every slot's score costs as much as the cosines.
  const relevance = new Float32Array(n);
  for (const h of offline) relevance[h.index] = h.relevance;
  let best = 0;
  const { dots, unit } = vectors.rows.dotAll(query);
  const { scales, has } = vectors;
  for (let i = 0; i < n; i++) {
    if (alive[i] !== 1 || has[i] !== 1 || (allowed && !allowed(i))) continue;
    const cosine = (dots[i] as number) * unit * (scales[i] as number);
    const score = Math.min(1, Math.max(0, (cosine - EMBEDDING_FLOOR) / (EMBEDDING_CEIL - EMBEDDING_FLOOR)));
    const r = (1 - weight) * (relevance[i] as number) + weight * score;
    relevance[i] = r;
  }
  for (let i = 0; i < n; i++) if ((relevance[i] as number) > best) best = relevance[i] as number;
  const floor = Math.max(QUERY_TUNING.minRelevance, QUERY_TUNING.relativeFloor * best);
  const out: RelevanceHit[] = [];
  for (let i = 0; i < n; i++) {
    const r = relevance[i] as number;
    if (r >= floor && r > 0) out.push({ index: i, relevance: r });
  }
  return out;
}
