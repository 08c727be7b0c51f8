// Optional OpenAI-compatible embeddings (POST {url}/embeddings) fused into discovery's ranking when
// SVC_EMBEDDINGS_URL is set. The offline ranking never depends on it: any failure falls back to it.
import type { DiscoveryEmbeddingsConfig } from '../../config.js';
import type { IndexedEndpoint } from './ranking/types.js';
import { normalise } from './ranking/vectors.js';

const BATCH = 64;
const TIMEOUT_MS = 10_000;

interface EmbeddingsResponse {
  data?: Array<{ index?: number; embedding?: unknown }>;
}

/** Unit vectors for `texts`, in order. Throws on any transport or format problem. */
export async function embedTexts(cfg: DiscoveryEmbeddingsConfig, texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += BATCH) {
    const input = texts.slice(start, start + BATCH);
    const res = await fetch(`${cfg.url}/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: cfg.model, input }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
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

/** The text embedded for an endpoint: what it does, in its provider's context. */
export function endpointText(e: IndexedEndpoint): string {
  return `${e.slug.replace(/-/g, ' ')}: ${e.description} Tags: ${e.tags.join(', ')}. Provider: ${e.providerName} (${e.category.replace(/_/g, ' ')}) ${e.providerDescription}`;
}

export interface EndpointEmbeddings {
  dims: number;
  /** Row i = unit vector of endpoint i. */
  vectors: Float32Array;
}

export async function embedEndpoints(
  cfg: DiscoveryEmbeddingsConfig,
  endpoints: IndexedEndpoint[],
): Promise<EndpointEmbeddings | undefined> {
  if (endpoints.length === 0) return undefined;
  const rows = await embedTexts(cfg, endpoints.map(endpointText));
  const dims = rows[0]?.length ?? 0;
  if (dims === 0 || rows.some((r) => r.length !== dims)) throw new Error('embeddings of different sizes');
  const vectors = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => {
    vectors.set(r, i * dims);
  });
  return { dims, vectors };
}

/** Cosine of the query vector with every endpoint. */
export function similarities(query: Float32Array, emb: EndpointEmbeddings): Float32Array {
  const n = emb.vectors.length / emb.dims;
  const sims = new Float32Array(n);
  if (query.length !== emb.dims) return sims;
  for (let i = 0; i < n; i++) {
    let s = 0;
    const off = i * emb.dims;
    for (let d = 0; d < emb.dims; d++) s += (query[d] as number) * (emb.vectors[off + d] as number);
    sims[i] = s;
  }
  return sims;
}
