// The optional embeddings API, faked at its network boundary: a local server speaking the
// OpenAI-compatible wire format (POST /embeddings {model, input} -> {data: [{index, embedding}]}).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DiscoveryEmbeddingsConfig, loadConfig } from '../../src/config.js';
import { EndpointVectors } from '../../src/modules/discovery/endpoint-vectors.js';
import { createSentenceEncoder } from '../../src/modules/discovery/sentence-encoder.js';
import { QUERY_VECTOR_WAIT_MS } from '../../src/modules/discovery/service.js';
import { createTestApp } from '../helpers/app.js';
import { createProvider, DISCOVERY_TEST_ENV, discoverOk, indexedEndpoint, keysOf } from './helpers.js';

const DIMS = 32;
/** The fake model "knows" that zorblax means invoice; every other word lands in a hashed dimension. */
const CONCEPTS: Record<string, number> = { zorblax: 0, invoice: 0, invoices: 0 };

function fakeEmbedding(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const word of text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean)) {
    const concept = CONCEPTS[word];
    if (concept !== undefined) v[concept] = (v[concept] ?? 0) + 6;
    else {
      let h = 7;
      for (const c of word) h = (h * 31 + c.charCodeAt(0)) % 9973;
      const d = 1 + (h % (DIMS - 1));
      v[d] = (v[d] ?? 0) + 1;
    }
  }
  return v;
}

let server: Server;
let baseUrl: string;
let failing = false;
/** Answers come this much later (a slow API). */
let delayMs = 0;
const seen: Array<{ authorization: string | undefined; model: unknown }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (failing || req.url !== '/v1/embeddings') {
        res.writeHead(500).end('{"error":"down"}');
        return;
      }
      const body = JSON.parse(raw) as { model: unknown; input: string[] };
      const answer = () => {
        seen.push({ authorization: req.headers.authorization, model: body.model });
        const data = body.input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: fakeEmbedding(text),
        }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data }));
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function appWithCatalogue(env: Record<string, string>) {
  const t = await createTestApp({ env: { ...DISCOVERY_TEST_ENV, ...env } });
  await createProvider(t, {
    id: 'billing',
    endpoints: [{ slug: 'create', description: 'Create an invoice PDF for a customer order.' }],
  });
  await createProvider(t, {
    id: 'weather',
    endpoints: [{ slug: 'now', description: 'Current temperature and wind for a city.' }],
  });
  return t;
}

describe('optional embeddings API (SVC_EMBEDDINGS_URL)', () => {
  it('is fused into the ranking: a word only the embedding model understands finds its endpoint', async () => {
    const offline = await appWithCatalogue({ SVC_EMBEDDINGS: 'off' });
    try {
      expect(keysOf(await discoverOk(offline, { query: 'zorblax' }))).toEqual([]);
    } finally {
      await offline.close();
    }
    const t = await appWithCatalogue({
      SVC_EMBEDDINGS_URL: baseUrl,
      SVC_EMBEDDINGS_MODEL: 'fake-embed-1',
      SVC_EMBEDDINGS_API_KEY: 'sk-test',
    });
    try {
      const body = await discoverOk(t, { query: 'zorblax' });
      expect(keysOf(body)[0]).toBe('billing/create');
      expect(body.results[0]?.relevance_score).toBeGreaterThan(0.3);
      expect(seen.at(-1)).toEqual({ authorization: 'Bearer sk-test', model: 'fake-embed-1' });
      // Ordinary queries still rank as offline.
      expect(keysOf(await discoverOk(t, { query: 'temperature in Oslo' }))[0]).toBe('weather/now');
    } finally {
      await t.close();
    }
  });

  it('is asked for a query only when its words answer it weakly', async () => {
    const t = await appWithCatalogue({ SVC_EMBEDDINGS_URL: baseUrl });
    try {
      expect(keysOf(await discoverOk(t, { query: 'zorblax' }))[0]).toBe('billing/create');
      const before = seen.length;
      // Every word found in one endpoint: ranked by the words, no request to the API.
      const strong = await discoverOk(t, { query: 'current temperature and wind for a city' });
      expect(keysOf(strong)[0]).toBe('weather/now');
      expect(seen.length).toBe(before);
      // A word the catalogue lacks: the query's vector is asked for.
      expect(keysOf(await discoverOk(t, { query: 'zorblax for a customer' }))[0]).toBe('billing/create');
      expect(seen.length).toBe(before + 1);
    } finally {
      await t.close();
    }
  });

  it('ranks a query by its words when its vector is late, and does not keep that answer', async () => {
    const t = await appWithCatalogue({ SVC_EMBEDDINGS_URL: baseUrl });
    try {
      // The catalogue's vectors and a first query's, at the API's normal speed.
      expect(keysOf(await discoverOk(t, { query: 'temperature in Oslo' }))[0]).toBe('weather/now');
      delayMs = 4_000;
      const started = Date.now();
      expect(keysOf(await discoverOk(t, { query: 'zorblax' }))).toEqual([]);
      expect(Date.now() - started).toBeLessThan(QUERY_VECTOR_WAIT_MS + 1_500);
      delayMs = 0;
      // The words-only answer was not cached: the same query, asked again, is ranked with its vector.
      expect(keysOf(await discoverOk(t, { query: 'zorblax' }))[0]).toBe('billing/create');
    } finally {
      delayMs = 0;
      await t.close();
    }
  });

  it('falls back to the offline ranking when the embeddings API fails', async () => {
    failing = true;
    const t = await appWithCatalogue({ SVC_EMBEDDINGS_URL: baseUrl });
    try {
      expect(keysOf(await discoverOk(t, { query: 'make an invoice' }))[0]).toBe('billing/create');
      expect(keysOf(await discoverOk(t, { query: 'zorblax' }))).toEqual([]);
    } finally {
      failing = false;
      await t.close();
    }
  });
});

describe('the catalogue vectors queue (EndpointVectors)', () => {
  const endpoint = (slug: string) =>
    indexedEndpoint(slug, {
      providerDescription: 'Lighthouses',
      description: `Beam rotation of lighthouse ${slug}.`,
    });

  it('lets a request waiting for a change go on when a bulk build is queued behind it', async () => {
    const config = loadConfig({ ...DISCOVERY_TEST_ENV, SVC_EMBEDDINGS_URL: baseUrl, SVC_ENV: 'devnet' });
    const encoder = createSentenceEncoder(config.discoveryEmbeddings as DiscoveryEmbeddingsConfig);
    const vectors = new EndpointVectors(encoder, undefined, () => {});
    delayMs = 100;
    try {
      // One changed endpoint: a request waits for its vector (it sees the change's words at once).
      vectors.want([endpoint('one')]);
      const waiting = vectors.settled();
      // Then a bulk build queues 200 texts (13 batches of the API, 100 ms each).
      vectors.want(Array.from({ length: 200 }, (_, i) => endpoint(`bulk-${i}`)));
      await waiting;
      // The request went on after the first batch, not after the whole bulk build.
      expect(vectors.vectorOf(endpoint('one'))).toBeDefined();
      expect(vectors.pending).toBeGreaterThan(100);
    } finally {
      delayMs = 0;
      vectors.close();
      await encoder.close();
    }
  });
});
