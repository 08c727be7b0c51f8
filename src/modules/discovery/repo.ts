// Discovery's reads: the catalogue (providers + endpoints; all of it, or a few providers), cheap
// per-block digests and per-provider versions for noticing changes made by other instances, and the
// quality metrics of every endpoint.
import { sql } from 'drizzle-orm';
import { type Executor, rows } from '../../db/index.js';
import { liveProvider, loadEndpointQuality } from '../catalog/index.js';
import type { IndexedEndpoint, ParameterSpec, QualityMetrics } from './ranking/types.js';

/**
 * Providers fall into this many blocks by a hash of their id. A change is found by one digest per block;
 * only the changed blocks' provider versions are then read (at 10,000 providers, ~160 rows instead of
 * every provider's, which on a busy instance arrive over several ranking turns).
 */
export const VERSION_BLOCKS = 64;
/** Providers are read as `p` everywhere here. */
const BLOCK = sql.raw(`(hashtext(p.id) & ${VERSION_BLOCKS - 1})`);
/** A provider's version: its update time and status (see `catalogDigests` for why not a maximum). */
const VERSION = sql.raw(`p.updated_at::text || ' ' || p.status`);

interface ProviderRow {
  provider_id: string;
  version: string;
  block: number;
  provider_name: string;
  provider_description: string;
  category: string;
  provider_tags: string[];
  /** The endpoint's columns are null on the one row of a provider that is not listed or has none. */
  slug: string | null;
  method: string;
  description: string;
  tags: string[];
  parameters: Record<string, ParameterSpec> | null;
  response_schema: Record<string, unknown> | null;
  price_credits: bigint;
}

export interface ProvidersRead {
  /** The version of every provider read (listed or not); a provider absent here does not exist. */
  versions: Map<string, ProviderVersion>;
  /** Every endpoint of the listed (active) ones, with their provider's texts, by provider id and slug. */
  endpoints: IndexedEndpoint[];
}

/**
 * Providers with their versions and, for the listed (active) ones, their endpoints: all of them, or the
 * ids given. One statement, so each endpoint list is exactly the one its version describes: an index
 * that records the version with the endpoints can tell later, by version alone, that it holds them.
 */
export async function readProviders(db: Executor, providerIds?: string[]): Promise<ProvidersRead> {
  const only =
    providerIds === undefined
      ? sql``
      : sql`WHERE p.id IN (SELECT json_array_elements_text(${JSON.stringify(providerIds)}::json))`;
  const result = await rows<ProviderRow>(
    db,
    sql`SELECT p.id AS provider_id, ${VERSION} AS version, ${BLOCK} AS block,
               p.name AS provider_name, p.description AS provider_description, p.category,
               to_json(p.tags) AS provider_tags, e.slug, e.method, e.description,
               to_json(e.tags) AS tags, e.parameters, e.response_schema, e.price_credits
        FROM providers p LEFT JOIN endpoints e ON e.provider_id = p.id AND ${liveProvider('p')}
        ${only}
        ORDER BY p.id, e.slug`,
  );
  const versions = new Map<string, ProviderVersion>();
  const endpoints: IndexedEndpoint[] = [];
  for (const r of result) {
    versions.set(r.provider_id, { version: r.version, block: r.block });
    if (r.slug === null) continue;
    endpoints.push({
      providerId: r.provider_id,
      providerName: r.provider_name,
      providerDescription: r.provider_description,
      category: r.category,
      providerTags: r.provider_tags ?? [],
      slug: r.slug,
      method: r.method,
      description: r.description,
      tags: r.tags ?? [],
      parameters: r.parameters ?? {},
      responseSchema: r.response_schema,
      priceCredits: BigInt(r.price_credits),
    });
  }
  return { versions, endpoints };
}

export interface CatalogDigests {
  /** Per block that holds providers: their count and a sum of hashes of their versions. */
  blocks: Map<number, string>;
  providers: number;
}

/**
 * Changes, in the block of the provider concerned, whenever a provider is created, replaced, deleted or
 * changes status: the count and a sum of hashes of each provider's version (id, update time, status). A
 * maximum of update times would miss a write whose timestamp is older than one already seen (a
 * transaction that took long to commit, another instance's clock). One pass over the providers table
 * (about 2 ms at 10,000 providers), run a few times a second per busy instance.
 */
export async function catalogDigests(db: Executor): Promise<CatalogDigests> {
  const result = await rows<{ block: number; providers: number; versions: string }>(
    db,
    sql`SELECT ${BLOCK} AS block, count(*)::int AS providers,
               sum(hashtext(p.id || ' ' || ${VERSION})::bigint)::text AS versions
        FROM providers p GROUP BY 1`,
  );
  return {
    blocks: new Map(result.map((r) => [r.block, `${r.providers}/${r.versions}`])),
    providers: result.reduce((n, r) => n + r.providers, 0),
  };
}

export interface ProviderVersion {
  /** Update time and status. */
  version: string;
  block: number;
}

/**
 * The version of every provider, or of those in `blocks`: comparing two of these tells which providers
 * were added, replaced or removed since, so only those are re-read and re-indexed.
 */
export async function providerVersions(
  db: Executor,
  blocks?: number[],
): Promise<Map<string, ProviderVersion>> {
  const where = blocks
    ? sql`WHERE ${BLOCK} IN (SELECT json_array_elements_text(${JSON.stringify(blocks)}::json)::int)`
    : sql``;
  const result = await rows<{ id: string; version: string; block: number }>(
    db,
    sql`SELECT p.id, ${VERSION} AS version, ${BLOCK} AS block FROM providers p ${where}`,
  );
  return new Map(result.map((r) => [r.id, { version: r.version, block: r.block }]));
}

/** Quality metrics keyed "provider/slug" (the catalogue's loader); endpoints without a row have defaults. */
export async function loadQuality(db: Executor): Promise<Map<string, QualityMetrics>> {
  const byKey = await loadEndpointQuality(db);
  const map = new Map<string, QualityMetrics>();
  for (const [key, q] of byKey) {
    map.set(key, {
      uptimePct: q.uptime_pct,
      avgLatencyMs: q.avg_latency_ms,
      errorRatePct: q.error_rate_pct,
      totalCalls: q.total_calls,
    });
  }
  return map;
}

/** A stored text's sentence vector and late-interaction rows (int8 components times their scale). */
export interface TextVectorRow {
  components: Int8Array;
  scale: number;
  late?: { components: Int8Array; scale: number };
}

/** node-postgres answers a Buffer, PGlite a Uint8Array: copy either into an Int8Array of its own. */
const int8Copy = (bytes: Uint8Array) => new Int8Array(Uint8Array.from(bytes).buffer);

/** Stored sentence vectors of the given text hashes (hex), by hash; missing ones are absent. */
export async function loadTextVectors(
  db: Executor,
  encoder: string,
  hashes: string[],
): Promise<Map<string, TextVectorRow>> {
  const result = await rows<{
    hash: string;
    components: Uint8Array;
    scale: number;
    late_components: Uint8Array | null;
    late_scale: number | null;
  }>(
    db,
    sql`SELECT encode(text_sha256, 'hex') AS hash, components, scale, late_components, late_scale
        FROM endpoint_text_vectors
        WHERE encoder = ${encoder}
          AND text_sha256 IN (SELECT decode(h, 'hex') FROM json_array_elements_text(${JSON.stringify(hashes)}::json) h)`,
  );
  const out = new Map<string, TextVectorRow>();
  for (const r of result) {
    const late =
      r.late_components && r.late_scale !== null
        ? { components: int8Copy(r.late_components), scale: Number(r.late_scale) }
        : undefined;
    out.set(r.hash, { components: int8Copy(r.components), scale: Number(r.scale), late });
  }
  return out;
}

/** Stores sentence vectors by text hash (hex); a row another instance wrote first is kept. */
export async function saveTextVectors(
  db: Executor,
  encoder: string,
  vectors: Array<TextVectorRow & { hash: string }>,
): Promise<void> {
  if (vectors.length === 0) return;
  const base64 = (a: Int8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  const json = JSON.stringify(
    vectors.map((v) => ({
      h: v.hash,
      c: base64(v.components),
      s: v.scale,
      lc: v.late ? base64(v.late.components) : null,
      ls: v.late?.scale ?? null,
    })),
  );
  await db.execute(
    sql`INSERT INTO endpoint_text_vectors (encoder, text_sha256, components, scale, late_components, late_scale)
        SELECT ${encoder}, decode(x->>'h', 'hex'), decode(x->>'c', 'base64'), (x->>'s')::real,
               decode(x->>'lc', 'base64'), (x->>'ls')::real
        FROM json_array_elements(${json}::json) x
        ON CONFLICT DO NOTHING`,
  );
}
