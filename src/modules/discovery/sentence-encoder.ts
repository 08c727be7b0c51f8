// Sentence embeddings for discovery: the encoder shipped with the service (a worker thread running two
// sentence models, all-MiniLM-L6-v2 and the Universal Sentence Encoder, encoder-worker.mjs) or an
// OpenAI-compatible embeddings API. Either turns texts into unit vectors; the ranking fuses their cosine
// with the offline ranking (slot-vectors.ts).
import { Worker } from 'node:worker_threads';
import type { DiscoveryEmbeddingsConfig } from '../../config.js';
import { normalise } from './ranking/vectors.js';
import { type CosineScale, DEFAULT_COSINE_SCALE } from './slot-vectors.js';

export interface SentenceEncoder {
  /** Names the encoder and model: stored vectors are kept per encoder. */
  readonly id: string;
  /** The range of its cosines that the ranking maps onto [0, 1] (fuseRelevance). */
  readonly cosineScale: CosineScale;
  /**
   * Unit vectors for `texts`, in order. `urgent` work (a query someone waits for) goes before queued
   * catalogue work. Rejects on any failure; callers rank offline meanwhile.
   */
  encode(texts: string[], urgent: boolean): Promise<Float32Array[]>;
  /**
   * As `encode`, with each text's late-interaction rows (late-tokens.mjs) where the encoder gives them:
   * the shipped encoder on ONNX Runtime does, from the same model run; its fallbacks and APIs do not.
   */
  encodeWithLate?(texts: string[], urgent: boolean): Promise<Encoded[]>;
  /** False while the shipped model loads (~1 s after a start): a query then waits for it in full. */
  readonly loaded: boolean;
  close(): Promise<void>;
}

/** A text's unit vector and, when the encoder gives them, its late-interaction rows (row-major, 96 wide). */
export interface Encoded {
  vector: Float32Array;
  late?: Float32Array;
}

/** The texts' vectors, with their late-interaction rows when the encoder gives them. */
export async function encodeWithLate(
  encoder: SentenceEncoder,
  texts: string[],
  urgent: boolean,
): Promise<Encoded[]> {
  if (encoder.encodeWithLate) return encoder.encodeWithLate(texts, urgent);
  return (await encoder.encode(texts, urgent)).map((vector) => ({ vector }));
}

export function createSentenceEncoder(cfg: DiscoveryEmbeddingsConfig, log?: WarningLog): SentenceEncoder {
  return cfg.source === 'local' ? new LocalSentenceEncoder({ log }) : new ApiSentenceEncoder(cfg);
}

/** Where discovery's background work reports what went wrong (the app's logger). */
export interface WarningLog {
  warn(obj: object, msg: string): void;
}

interface Job {
  texts: string[];
  resolve: (encoded: Encoded[]) => void;
  reject: (err: Error) => void;
}

/** Queries waiting together go to the worker as one batch: one message each way instead of one per query
 *  (on the TensorFlow.js fallback a batch of 16 also costs about a third per text of one text alone). */
const URGENT_BATCH_TEXTS = 32;
type WorkerAnswer =
  | {
      id: number;
      dims: number;
      vectors: Float32Array;
      late?: Float32Array[];
      engine: string;
      fallbackReason?: string;
    }
  | { id: number; error: string };

/** After the worker fails to start, dies or hangs, wait this long before starting another. */
const RESTART_AFTER_MS = 30_000;
/** A batch takes well under a second (16 catalogue texts ~70 ms, ~0.5 s on the fallback); a worker
 *  silent this long is stuck. */
const BATCH_DEADLINE_MS = 30_000;

export interface LocalEncoderOptions {
  /** The worker's script; tests substitute one that never answers. */
  workerUrl?: URL;
  batchDeadlineMs?: number;
  /** How long a worker told to close may take before it is terminated (CLOSE_GRACE_MS; tests of a silent worker shorten it). */
  closeGraceMs?: number;
  /** 'fallback' runs each model on its fallback (WebAssembly), as where ONNX Runtime cannot load. */
  engine?: 'fallback';
  /** 'float32' runs the ONNX graphs without their 8-bit projections (tests compare them with the fallbacks). */
  precision?: 'float32';
  /** The package loaded as ONNX Runtime (default onnxruntime-node); tests name a missing one. */
  onnxRuntime?: string;
  /** Told once per worker when the model runs on the fallback because ONNX Runtime could not load. */
  log?: WarningLog;
  /** Which models (encoder-worker.mjs): both, joined (the default), or one alone (evaluation). */
  model?: LocalModel;
}

export type LocalModel = 'use-lite+minilm' | 'use-lite' | 'minilm';
/**
 * Each choice: the id its stored vectors are kept under (one choice's vectors never mix with another's),
 * its models with their weights in the joined vector (cosine = the weighted mean of theirs), and its cosine
 * scale. Weights and scales chosen by the dev set's cross-validation (docs/discovery-history.md,
 * "Eighth round").
 * "/int8": the vectors of the 8-bit graphs (ninth round); "+late96": stored with their late-interaction
 * rows (tenth round), so that vectors stored before them are not read as vectors without. Where ONNX
 * Runtime cannot load, the fallbacks read the vectors stored under the same id (their own float vectors
 * agree to a cosine of ~0.996, closer than two wordings of one text) but do not store theirs, which have
 * no late-interaction rows (endpoint-vectors.ts).
 */
const LOCAL_MODELS: Record<LocalModel, { id: string; models: Array<[string, number]>; scale: CosineScale }> =
  {
    'use-lite+minilm': {
      id: 'minilm-l6-v2+use-lite/0.5+0.5/int8+late96',
      models: [
        ['minilm', 0.5],
        ['use-lite', 0.5],
      ],
      scale: { floor: 0.1, ceil: 0.5 },
    },
    'use-lite': {
      id: 'use-lite-512/energetic-ai-0.2.0/int8',
      models: [['use-lite', 1]],
      scale: DEFAULT_COSINE_SCALE,
    },
    minilm: {
      id: 'all-minilm-l6-v2/lat.md-fp16-0.1.0/int8+late96',
      models: [['minilm', 1]],
      scale: { floor: 0.1, ceil: 0.5 },
    },
  };

/**
 * The shipped encoder, in a worker thread so that encoding (~5 ms of CPU for a query, ~12 ms for an endpoint
 * text on ONNX Runtime, both models; ~10× that on the fallbacks; encoder-worker.mjs) never blocks the
 * event loop. One batch at a time
 * goes to the worker: the queries waiting (all of them together, up to URGENT_BATCH_TEXTS) before
 * catalogue work, so a query waits for at most one catalogue batch. The
 * worker (and its models, ~150 MB) starts with the first job and stops with `close()`; it does not keep the
 * process alive. A batch unanswered for BATCH_DEADLINE_MS ends the worker as failed.
 */
export class LocalSentenceEncoder implements SentenceEncoder {
  readonly id: string;
  readonly cosineScale: CosineScale;
  private worker: Worker | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;
  private readonly urgent: Job[] = [];
  private readonly background: Job[] = [];
  private running: { id: number; jobs: Job[]; deadline: NodeJS.Timeout } | undefined;
  private nextId = 1;
  private closed = false;
  private readonly workerUrl: URL;
  /** The current worker has answered once (its model is loaded). */
  private answered = false;
  private readonly batchDeadlineMs: number;
  private readonly closeGraceMs: number;
  private readonly workerData: Pick<LocalEncoderOptions, 'engine' | 'onnxRuntime' | 'precision'> & {
    models: Array<[string, number]>;
  };
  private readonly log: WarningLog | undefined;
  /** What runs the models, once the worker has answered ("onnxruntime-node …" or the fallbacks). */
  engine: string | undefined;

  constructor(options: LocalEncoderOptions = {}) {
    this.workerUrl = options.workerUrl ?? new URL('./encoder-worker.mjs', import.meta.url);
    this.batchDeadlineMs = options.batchDeadlineMs ?? BATCH_DEADLINE_MS;
    this.closeGraceMs = options.closeGraceMs ?? CLOSE_GRACE_MS;
    const { id, models, scale } = LOCAL_MODELS[options.model ?? 'use-lite+minilm'];
    this.id = id;
    this.cosineScale = scale;
    this.workerData = {
      engine: options.engine,
      onnxRuntime: options.onnxRuntime,
      precision: options.precision,
      models,
    };
    this.log = options.log;
  }

  get loaded(): boolean {
    return this.answered;
  }

  async encode(texts: string[], urgent: boolean): Promise<Float32Array[]> {
    return (await this.encodeWithLate(texts, urgent)).map((e) => e.vector);
  }

  encodeWithLate(texts: string[], urgent: boolean): Promise<Encoded[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error('sentence encoder closed'));
    if (Date.now() - this.failedAt < RESTART_AFTER_MS)
      return Promise.reject(new Error('sentence encoder unavailable (failed recently)'));
    return new Promise((resolve, reject) => {
      (urgent ? this.urgent : this.background).push({ texts, resolve, reject });
      this.pump();
    });
  }

  private pump() {
    if (this.running || this.closed) return;
    const jobs = this.urgent.length > 0 ? this.takeUrgent() : this.background.splice(0, 1);
    if (jobs.length === 0) return;
    const worker = this.ensureWorker();
    const id = this.nextId++;
    const deadline = setTimeout(
      () =>
        this.failWorker(
          worker,
          new Error(`sentence encoder did not answer within ${this.batchDeadlineMs} ms`),
        ),
      this.batchDeadlineMs,
    );
    deadline.unref();
    this.running = { id, jobs, deadline };
    worker.postMessage({ id, texts: jobs.flatMap((j) => j.texts) });
  }

  /** The waiting queries, oldest first, up to URGENT_BATCH_TEXTS texts (at least one job). */
  private takeUrgent(): Job[] {
    let texts = 0;
    let n = 0;
    while (n < this.urgent.length) {
      texts += (this.urgent[n] as Job).texts.length;
      if (n > 0 && texts > URGENT_BATCH_TEXTS) break;
      n += 1;
    }
    return this.urgent.splice(0, n);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerUrl, { workerData: this.workerData });
    worker.unref();
    worker.on('message', (answer: WorkerAnswer) => {
      const running = this.running;
      if (!running || running.id !== answer.id) return;
      clearTimeout(running.deadline);
      this.running = undefined;
      if (!('error' in answer)) {
        // A worker that fell back is ~10× slower per text: say so once, with why.
        if (answer.fallbackReason !== undefined && !this.answered)
          this.log?.warn(
            { engine: answer.engine, reason: answer.fallbackReason },
            'sentence encoder: ONNX Runtime could not load; the models run on WebAssembly, about 10x slower',
          );
        this.answered = true;
        this.engine = answer.engine;
      }
      try {
        if ('error' in answer) throw new Error(`sentence encoder: ${answer.error}`);
        const total = running.jobs.reduce((n, j) => n + j.texts.length, 0);
        const rows = rowsOf(answer.vectors, answer.dims, total);
        if (answer.late && answer.late.length !== total)
          throw new Error('sentence encoder: malformed answer');
        const encoded = rows.map((vector, i) => ({ vector, late: answer.late?.[i] }));
        let start = 0;
        for (const job of running.jobs) {
          job.resolve(encoded.slice(start, start + job.texts.length));
          start += job.texts.length;
        }
      } catch (err) {
        for (const job of running.jobs) job.reject(err as Error);
      }
      this.pump();
    });
    worker.on('error', (err) => this.failWorker(worker, err));
    worker.on('exit', (code) =>
      this.failWorker(worker, new Error(`sentence encoder worker exited (${code})`), true),
    );
    this.worker = worker;
    return worker;
  }

  /** The worker died or hangs: every job waiting fails now, and no new worker starts for a while. */
  private failWorker(worker: Worker, err: Error, exited = false) {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.answered = false;
    this.failedAt = Date.now();
    for (const job of this.takeAllJobs()) job.reject(err);
    if (!exited) void stopWorker(worker, this.closeGraceMs);
  }

  private takeAllJobs(): Job[] {
    if (this.running) clearTimeout(this.running.deadline);
    const jobs = [...(this.running?.jobs ?? []), ...this.urgent, ...this.background];
    this.running = undefined;
    this.urgent.length = 0;
    this.background.length = 0;
    return jobs;
  }

  async close() {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    for (const job of this.takeAllJobs()) job.reject(new Error('sentence encoder closed'));
    if (worker) await stopWorker(worker, this.closeGraceMs);
  }
}

/**
 * A worker told to close gets this long to finish its run under way before it is terminated. 5 s was not
 * enough on a loaded host (twenty-third round: a CI run beside other work aborted with ONNX Runtime's
 * "terminate called after throwing an instance of 'Napi::Error'" after every test had passed): a model
 * still loading, or a batch on a starved CPU, can take longer. Only a hung worker waits this long.
 */
const CLOSE_GRACE_MS = 30_000;

/**
 * Ends a worker without cutting a model run short: ONNX Runtime aborts the whole process when its thread
 * is terminated mid-run. The worker finishes the text under way and exits; one that does not (hung, or a
 * test's stand-in that ignores messages) is terminated after `graceMs`.
 */
async function stopWorker(worker: Worker, graceMs: number): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.ref(); // an unref'd worker would let the process end before it has
  worker.postMessage({ close: true });
  const timer = setTimeout(() => void worker.terminate(), graceMs);
  await exited;
  clearTimeout(timer);
}

function rowsOf(vectors: Float32Array, dims: number, count: number): Float32Array[] {
  if (dims === 0 || vectors.length !== dims * count) throw new Error('sentence encoder: malformed answer');
  return Array.from({ length: count }, (_, i) => normalise(vectors.slice(i * dims, (i + 1) * dims)));
}

const API_BATCH = 64;
const API_TIMEOUT_MS = 10_000;

interface EmbeddingsResponse {
  data?: Array<{ index?: number; embedding?: unknown }>;
}

/** An OpenAI-compatible embeddings API (POST {url}/embeddings). */
export class ApiSentenceEncoder implements SentenceEncoder {
  readonly id: string;
  readonly cosineScale = DEFAULT_COSINE_SCALE;
  readonly loaded = true;
  constructor(private readonly cfg: Extract<DiscoveryEmbeddingsConfig, { source: 'api' }>) {
    const { host, pathname } = new URL(cfg.url);
    this.id = `api/${host}${pathname}/${cfg.model}`;
  }

  async encode(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += API_BATCH) {
      const input = texts.slice(start, start + API_BATCH);
      const res = await fetch(`${this.cfg.url}/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.cfg.model, input }),
        signal: AbortSignal.timeout(API_TIMEOUT_MS),
      });
      if (!res.ok) throw new Error(`embeddings API answered ${res.status}`);
      const body = (await res.json()) as EmbeddingsResponse;
      const rows = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      if (rows.length !== input.length)
        throw new Error('embeddings API returned a different number of vectors');
      for (const row of rows) {
        if (!Array.isArray(row.embedding) || !row.embedding.every((x) => typeof x === 'number')) {
          throw new Error('embeddings API returned a malformed vector');
        }
        out.push(normalise(Float32Array.from(row.embedding as number[])));
      }
    }
    return out;
  }

  async close() {}
}
