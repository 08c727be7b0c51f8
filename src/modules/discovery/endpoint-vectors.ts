// Sentence vectors of the catalogue's endpoints, per app, kept current in the background: an endpoint
// added or changed is queued, looked up in the database (`endpoint_text_vectors`: each text is encoded
// once, not by every instance at every start), else encoded in small batches (sentence-encoder.ts) and
// stored, and then fused into the ranking. Vectors are kept by endpoint text, so a rebuild or a re-read of
// an unchanged endpoint costs nothing. Until its vector arrives an endpoint ranks by its offline
// relevance alone (`fuseRelevance`, slot-vectors.ts).
import { createHash } from 'node:crypto';
import { quantise, type StoredVector } from './int8-rows.js';
import type { IndexedEndpoint } from './ranking/types.js';
import type { TextVectorRow } from './repo.js';
import { type Encoded, encodeWithLate, type SentenceEncoder, type WarningLog } from './sentence-encoder.js';
import { type SlotVectors, slotVectors } from './slot-vectors.js';

/** Texts per encoder batch: small, so that a query waits for at most one (~0.4 s of one core for both
 *  models on ONNX Runtime, ~10× that on the fallbacks). */
const BATCH = 16;
/** Texts looked up in the database at once, then encoded if missing. Small enough that instances
 *  starting together on a new catalogue mostly find each other's work (see `nextBatch`). */
const LOOKUP_BATCH = 64;
/** After a failed batch, try again this much later. */
const RETRY_MS = 5_000;
/** A request waits for the queue when at most this many texts wait (a change: well under a second);
 *  behind a bulk build it ranks at once, with the vectors there are. */
const WAIT_FOR_AT_MOST = 64;

/** The text encoded for an endpoint: what it does, in its provider's context. */
export function endpointText(e: IndexedEndpoint): string {
  return `${e.slug.replace(/-/g, ' ')}: ${e.description} Tags: ${e.tags.join(', ')}. Provider: ${e.providerName} (${e.category.replace(/_/g, ' ')}) ${e.providerDescription}`;
}

/** Where encoded vectors are kept between starts and shared between instances (repo.ts). */
export interface VectorStore {
  load(hashes: string[]): Promise<Map<string, TextVectorRow>>;
  save(vectors: Array<TextVectorRow & { hash: string }>): Promise<void>;
}

/** A stored row as the ranking holds it, and back. */
const fromRow = (r: TextVectorRow): StoredVector => ({
  q: r.components,
  scale: r.scale,
  late: r.late ? { q: r.late.components, scale: r.late.scale } : undefined,
});
const toRow = (v: StoredVector): TextVectorRow => ({
  components: v.q,
  scale: v.scale,
  late: v.late ? { components: v.late.q, scale: v.late.scale } : undefined,
});

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
    private readonly log?: WarningLog,
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
        // A bulk build queued behind the requests waiting here: they rank at once, as they would have
        // had they come now (`settled`), instead of waiting for thousands of texts.
        if (this.waiting.size > WAIT_FOR_AT_MOST) this.release();
        const texts = nextBatch(this.waiting);
        const hashes = texts.map(sha256);
        const stored = await this.lookUp(hashes);
        const missing: Array<{ text: string; hash: string }> = [];
        texts.forEach((text, i) => {
          const hash = hashes[i] as string;
          const found = stored.get(hash);
          if (found) {
            if (this.waiting.delete(text)) this.byText.set(text, fromRow(found));
            added += 1;
          } else missing.push({ text, hash });
        });
        for (let start = 0; start < missing.length && !this.closed; start += BATCH) {
          const batch = missing.slice(start, start + BATCH);
          const encoded = await encodeWithLate(
            this.encoder,
            batch.map((m) => m.text),
            false,
          );
          const rows = batch.map((m, i) => {
            const { vector, late } = encoded[i] as Encoded;
            return { ...m, vector: { ...quantise(vector), late: late ? quantise(late) : undefined } };
          });
          for (const r of rows) {
            // A text dropped from the catalogue meanwhile (`want(…, all)`) is not kept in memory.
            if (this.waiting.delete(r.text)) this.byText.set(r.text, r.vector);
          }
          added += rows.length;
          await this.keep(rows.map((r) => ({ hash: r.hash, ...toRow(r.vector) })));
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
      this.release();
    }
  }

  /** Lets every request waiting for the queue go on. */
  private release() {
    for (const resolve of this.waiters.splice(0)) resolve();
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

  /**
   * Stores encoded vectors for other instances and the next start. An encoder that gives late-interaction
   * rows (the shipped one) stores only vectors that have them: a vector its fallback engines computed
   * has none, and another instance reading it would never reorder by it (stored rows are not rewritten).
   * Such vectors stay in this instance's memory.
   */
  private async keep(rows: Array<TextVectorRow & { hash: string }>) {
    const complete = this.encoder.encodeWithLate ? rows.filter((r) => r.late) : rows;
    if (complete.length === 0) return;
    try {
      await this.store?.save(complete);
    } catch (err) {
      this.log?.warn({ err }, 'storing sentence vectors failed; they stay in memory');
    }
  }

  close() {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.release();
  }
}
