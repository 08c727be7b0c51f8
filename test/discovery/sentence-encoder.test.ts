// The sentence encoder shipped with the service (SVC_EMBEDDINGS=local, the default): the real model in
// its worker thread, fused into the ranking, kept current as providers change, and its vectors stored so
// that another instance or a restart does not encode them again.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { EndpointVectors } from '../../src/modules/discovery/endpoint-vectors.js';
import { quantise } from '../../src/modules/discovery/int8-rows.js';
import { TOKEN_DIMS } from '../../src/modules/discovery/late-tokens.mjs';
import { lateScores } from '../../src/modules/discovery/ranking/late-interaction.js';
import { loadTextVectors, saveTextVectors } from '../../src/modules/discovery/repo.js';
import { LocalSentenceEncoder } from '../../src/modules/discovery/sentence-encoder.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  createProvider,
  DISCOVERY_TEST_ENV,
  discoverOk,
  indexedEndpoint,
  keysOf,
  providerBody,
} from './helpers.js';

const CATALOGUE = [
  {
    id: 'billing',
    endpoints: [{ slug: 'create', description: 'Create an invoice PDF for a customer order.' }],
  },
  { id: 'weather', endpoints: [{ slug: 'now', description: 'Current temperature and wind for a city.' }] },
  {
    id: 'geo',
    endpoints: [{ slug: 'distance', description: 'Great-circle distance between two coordinates.' }],
  },
  { id: 'mail', endpoints: [{ slug: 'send', description: 'Send an e-mail message to a recipient.' }] },
  {
    id: 'fx',
    endpoints: [{ slug: 'convert', description: 'Convert an amount between currencies at the latest rate.' }],
  },
];

/** The largest difference between two vectors, dimension by dimension. */
const largestDifference = (x: Float32Array, y: Float32Array) =>
  Math.max(...x.map((v, d) => Math.abs(v - (y[d] as number))));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

async function appWith(env: Record<string, string>, schema?: string) {
  const t = await createTestApp({ env: { ...DISCOVERY_TEST_ENV, ...env }, schema });
  if (!schema) for (const p of CATALOGUE) await createProvider(t, p);
  return t;
}

let fused: TestApp;
let offline: TestApp;
beforeAll(async () => {
  fused = await appWith({});
  offline = await appWith({ SVC_EMBEDDINGS: 'off' });
});
afterAll(async () => {
  await fused.close();
  await offline.close();
});

describe('the shipped sentence encoder', () => {
  it.each([
    ['do I need an umbrella today', 'weather/now'],
    ['drop a note to my boss', 'mail/send'],
  ])('finds what the words alone miss: "%s" → %s', async (query, expected) => {
    expect(keysOf(await discoverOk(offline, { query }))[0]).not.toBe(expected);
    expect(keysOf(await discoverOk(fused, { query }))[0]).toBe(expected);
  });

  it('leaves clear word matches where they were', async () => {
    for (const [query, expected] of [
      ['create an invoice pdf', 'billing/create'],
      ['convert currencies', 'fx/convert'],
    ] as const) {
      expect(keysOf(await discoverOk(fused, { query }))[0]).toBe(expected);
      expect(keysOf(await discoverOk(offline, { query }))[0]).toBe(expected);
    }
  });

  it('a changed endpoint is ranked by its new meaning in the next request', async () => {
    const query = { query: 'is it going to snow in the mountains' };
    expect(keysOf(await discoverOk(fused, query))).not.toContain('billing/create');
    const { provider_id: _id, ...replacement } = providerBody({
      id: 'billing',
      endpoints: [{ slug: 'create', description: 'Snowfall and avalanche bulletin for alpine ski resorts.' }],
    });
    expect((await fused.admin('PUT', '/v1/admin/providers/billing', replacement)).statusCode).toBe(200);
    expect(keysOf(await discoverOk(fused, query))[0]).toBe('billing/create');
  });

  it('stores one vector per endpoint text, kept for the next start and other instances', async () => {
    const stored = async () =>
      (
        await rows<{ n: number; encoders: number; late: number }>(
          fused.deps.db.orm,
          sql`SELECT count(*)::int AS n, count(DISTINCT encoder)::int AS encoders,
                 count(*) FILTER (WHERE length(late_components) > 0
                   AND length(late_components) % ${TOKEN_DIMS} = 0 AND late_scale > 0)::int AS late
          FROM endpoint_text_vectors`,
        )
      )[0];
    // The replaced text of the test above is encoded and stored in the background: a query its words
    // answer well does not wait for it, so on a busy machine its row may not be written yet.
    let row = await stored();
    for (let waited = 0; (row?.n ?? 0) < 6 && waited < 10_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      row = await stored();
    }
    // Five providers' endpoints, plus the replaced text of the test above (rows are never rewritten),
    // each with its late-interaction rows.
    expect(row).toEqual({ n: 6, encoders: 1, late: 6 });
    const [none] = await rows<{ n: number }>(
      offline.deps.db.orm,
      sql`SELECT count(*)::int AS n FROM endpoint_text_vectors`,
    );
    expect(none?.n).toBe(0);
  });
});

describe('late-interaction rows', () => {
  it('are stored beside the vector and read back as they were; a text without them reads back without', async () => {
    // The offline app's database: the other tests count the rows the fused app stores.
    const db = offline.deps.db.orm;
    const late = {
      components: Int8Array.from({ length: 2 * TOKEN_DIMS }, (_, i) => (i % 255) - 127),
      scale: 0.0125,
    };
    await saveTextVectors(db, 'test/late', [
      { hash: 'aa'.repeat(32), components: Int8Array.of(1, -2, 3), scale: 0.5, late },
      { hash: 'bb'.repeat(32), components: Int8Array.of(4, 5, -6), scale: 0.25 },
    ]);
    const back = await loadTextVectors(db, 'test/late', ['aa'.repeat(32), 'bb'.repeat(32)]);
    expect(back.get('aa'.repeat(32))).toEqual({ components: Int8Array.of(1, -2, 3), scale: 0.5, late });
    expect(back.get('bb'.repeat(32))).toEqual({
      components: Int8Array.of(4, 5, -6),
      scale: 0.25,
      late: undefined,
    });
    await db.execute(sql`DELETE FROM endpoint_text_vectors WHERE encoder = 'test/late'`);
  });

  it('are stored with every vector the shipped encoder stores; a vector of its fallback stays in memory', async () => {
    const db = offline.deps.db.orm;
    const storeFor = (encoder: string) => ({
      load: (hashes: string[]) => loadTextVectors(db, encoder, hashes),
      save: (rows: Parameters<typeof saveTextVectors>[2]) => saveTextVectors(db, encoder, rows),
    });
    const lighthouse = indexedEndpoint('beam', { description: 'Beam rotation of a lighthouse.' });
    const stored = async (encoder: string) =>
      (
        await rows<{ n: number; late: number }>(
          db,
          sql`SELECT count(*)::int AS n, count(late_components)::int AS late
              FROM endpoint_text_vectors WHERE encoder = ${encoder}`,
        )
      )[0];
    for (const [name, encoder, expected] of [
      ['test/onnx', new LocalSentenceEncoder(), { n: 1, late: 1 }],
      [
        'test/fallback',
        new LocalSentenceEncoder({ onnxRuntime: 'onnxruntime-node-not-installed' }),
        { n: 0, late: 0 },
      ],
    ] as const) {
      const vectors = new EndpointVectors(encoder, storeFor(name), () => {});
      try {
        vectors.want([lighthouse]);
        await vectors.settled();
        expect(vectors.vectorOf(lighthouse)).toBeDefined();
        expect(await stored(name)).toEqual(expected);
      } finally {
        vectors.close();
        await encoder.close();
        await db.execute(sql`DELETE FROM endpoint_text_vectors WHERE encoder = ${name}`);
      }
    }
  });

  it('are one unit row per word of the text, from the same run as its vector', async () => {
    const encoder = new LocalSentenceEncoder();
    try {
      const texts = [
        'translate text into German.',
        'Translate a sentence into another language',
        'Send an SMS',
      ];
      const encoded = await encoder.encodeWithLate(texts, true);
      const [first] = encoded;
      // translate, text, into, german: the full stop is no word.
      expect(first?.late?.length).toBe(4 * TOKEN_DIMS);
      const late = first?.late as Float32Array;
      for (let r = 0; r < 4; r++) {
        const row = late.subarray(r * TOKEN_DIMS, (r + 1) * TOKEN_DIMS);
        expect(cosine(row, row)).toBeCloseTo(1, 5);
      }
      expect(first?.vector).toEqual((await encoder.encode([texts[0] as string], true))[0]);
      // Each word finds its like in the translation endpoint's text, not in the SMS one's.
      const query = late;
      const endpoints = encoded.slice(1).map((e) => quantise(e.late as Float32Array));
      const [translation, sms] = lateScores(query, endpoints);
      expect(translation).toBeGreaterThan((sms as number) + 0.2);
    } finally {
      await encoder.close();
    }
  });
});

describe('the encoder thread under concurrent queries', () => {
  it('answers each of many concurrent queries with its own vector, as if encoded alone', async () => {
    const texts = [
      'weather in Paris tomorrow',
      'send an invoice',
      'translate this sentence to German',
      'how far is Tokyo from Osaka',
      'convert 20 euros to dollars',
      'check a vat number',
      'summarise a pdf document',
      'stock price of a company',
    ];
    const encoder = new LocalSentenceEncoder();
    try {
      const alone: Float32Array[] = [];
      for (const t of texts) alone.push(...(await encoder.encode([t], true)));
      // All at once, behind a catalogue batch: the queries wait together and go to the model as one batch.
      const background = encoder.encode(texts.slice(0, 3), false);
      const together = await Promise.all(texts.map((t) => encoder.encode([t], true)));
      await background;
      together.forEach(([v], i) => {
        expect(cosine(v as Float32Array, alone[i] as Float32Array)).toBeGreaterThan(0.999);
        for (let j = 0; j < texts.length; j++)
          if (j !== i) expect(cosine(v as Float32Array, alone[j] as Float32Array)).toBeLessThan(0.95);
      });
    } finally {
      await encoder.close();
    }
  });
});

describe('the engines that run each model', () => {
  const texts = [
    'do I need an umbrella today',
    'x',
    'Send an SMS — “café” 東京 🚀, 3×faster!',
    // Over 128 sentencepiece tokens (the Universal Sentence Encoder reads the first 128) and over 256
    // WordPiece tokens (MiniLM reads the first 256).
    'Current temperature and wind for a city. Tags: weather, current. Provider: cloudvane (weather) '.repeat(
      16,
    ),
  ];
  it.each([
    ['use-lite', 512, /^tensorflow\.js/],
    ['minilm', 384, /^@lat\.md\/embed/],
  ] as const)(
    '%s: the float graph on ONNX Runtime gives the vectors its fallback gives',
    async (model, dims, fallbackEngine) => {
      const onnx = new LocalSentenceEncoder({ model, precision: 'float32' });
      const fallback = new LocalSentenceEncoder({ model, engine: 'fallback' });
      try {
        const [a, b] = await Promise.all([onnx.encode(texts, true), fallback.encode(texts, true)]);
        expect(onnx.engine).toMatch(/^onnxruntime-node /);
        expect(fallback.engine).toMatch(fallbackEngine);
        texts.forEach((_, i) => {
          const x = a[i] as Float32Array;
          const y = b[i] as Float32Array;
          expect(x).toHaveLength(dims);
          expect(largestDifference(x, y)).toBeLessThan(1e-5);
        });
      } finally {
        await onnx.close();
        await fallback.close();
      }
    },
  );

  it.each(['use-lite', 'minilm'] as const)(
    '%s: the shipped 8-bit graph points where the float model points',
    async (model) => {
      const shipped = new LocalSentenceEncoder({ model });
      const float = new LocalSentenceEncoder({ model, precision: 'float32' });
      try {
        const [a, b] = await Promise.all([shipped.encode(texts, true), float.encode(texts, true)]);
        texts.forEach((_, i) => {
          const x = a[i] as Float32Array;
          const y = b[i] as Float32Array;
          expect(cosine(x, y)).toBeGreaterThan(0.99);
          // It is the 8-bit graph that runs: the float one would agree to 1e-6.
          expect(largestDifference(x, y)).toBeGreaterThan(1e-4);
        });
      } finally {
        await shipped.close();
        await float.close();
      }
    },
  );

  it('the shipped encoder joins both: its cosine is the mean of theirs', async () => {
    const [query, endpoint] = ['drop a note to my boss', 'Send an e-mail message to a recipient.'];
    const encoders = (['use-lite+minilm', 'use-lite', 'minilm'] as const).map(
      (model) => new LocalSentenceEncoder({ model }),
    );
    try {
      const [joined, use, minilm] = await Promise.all(
        encoders.map(async (e) => {
          const [q, d] = await e.encode([query, endpoint], true);
          return cosine(q as Float32Array, d as Float32Array);
        }),
      );
      expect(encoders[0]?.id).not.toBe(encoders[1]?.id);
      expect(joined).toBeCloseTo(((use as number) + (minilm as number)) / 2, 5);
    } finally {
      await Promise.all(encoders.map((e) => e.close()));
    }
  });
});

describe('where ONNX Runtime cannot load', () => {
  it('the worker runs each model on its fallback instead, with nearly the same vectors', async () => {
    const warnings: Array<{ obj: object; msg: string }> = [];
    const fallback = new LocalSentenceEncoder({
      onnxRuntime: 'onnxruntime-node-not-installed',
      log: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    });
    const shipped = new LocalSentenceEncoder();
    try {
      const [[a], [b]] = await Promise.all([
        fallback.encode(['send money abroad'], true),
        shipped.encode(['send money abroad'], true),
      ]);
      expect(fallback.engine).toMatch(/WebAssembly/);
      expect(fallback.engine).not.toMatch(/onnxruntime/);
      // An operator is told once, with the reason: discovery is slower on the fallback.
      await fallback.encode(['and again'], true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(/ONNX Runtime could not load/);
      expect(JSON.stringify(warnings[0]?.obj)).toContain('onnxruntime-node-not-installed');
      expect(shipped.engine).toMatch(/^onnxruntime-node /);
      // The fallback computes the float models; the shipped graphs run mostly in 8-bit integers.
      expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThan(0.99);
      // Its engines give no late-interaction rows: its rankings are not reordered by them.
      const [withLate] = await fallback.encodeWithLate(['send money abroad'], true);
      expect(withLate?.late).toBeUndefined();
    } finally {
      await fallback.close();
      await shipped.close();
    }
  });
});

describe('closing the encoder', () => {
  it('while the model runs ends the worker cleanly, not the process', async () => {
    const script = fileURLToPath(new URL('./close-mid-run.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe('closed mid-run 5 times');
  });
});

describe('a worker that stops answering', () => {
  it('fails the batch at its deadline and every queued one with it, then rests before a new worker', async () => {
    const encoder = new LocalSentenceEncoder({
      workerUrl: new URL('./silent-encoder-worker.mjs', import.meta.url),
      batchDeadlineMs: 300,
      closeGraceMs: 300,
    });
    try {
      const started = Date.now();
      const running = encoder.encode(['first'], false);
      const queued = encoder.encode(['second'], true);
      await expect(running).rejects.toThrow(/did not answer within 300 ms/);
      await expect(queued).rejects.toThrow(/did not answer within 300 ms/);
      expect(Date.now() - started).toBeLessThan(5_000);
      await expect(encoder.encode(['third'], true)).rejects.toThrow(/failed recently/);
    } finally {
      await encoder.close();
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a second instance sharing the database (PostgreSQL)', () => {
  it('reads the stored vectors and ranks exactly as the first', async () => {
    const second = await appWith({}, fused.schema);
    try {
      for (const query of ['do I need an umbrella today', 'send money abroad', 'weather alerts']) {
        const a = await discoverOk(fused, { query });
        const b = await discoverOk(second, { query });
        expect(b.results.map((r) => [r.provider_id, r.relevance_score])).toEqual(
          a.results.map((r) => [r.provider_id, r.relevance_score]),
        );
      }
      const [row] = await rows<{ n: number }>(
        second.deps.db.orm,
        sql`SELECT count(*)::int AS n FROM endpoint_text_vectors`,
      );
      expect(row?.n).toBe(6);
    } finally {
      await second.close();
    }
  });
});
