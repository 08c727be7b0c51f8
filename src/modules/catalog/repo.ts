// Data access of the catalogue. Other modules (discovery, execution) read the catalogue through the
// exported loaders here rather than querying the tables themselves.
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, one, rows, toIso } from '../../db/index.js';
import type { Category, EndpointInput, HttpMethod, ParameterInput, ProviderStatus } from './schemas.js';

export interface ResponseField {
  type: string;
  enum?: (string | number | boolean)[];
  description?: string;
  items?: { type: string };
}

export interface CatalogEndpoint {
  providerId: string;
  slug: string;
  method: HttpMethod;
  /** Path below the provider's base_url; `/<slug>` when the provider gave none. */
  path: string;
  description: string;
  tags: string[];
  parameters: Record<string, ParameterInput>;
  responseSchema: Record<string, ResponseField>;
  priceCredits: bigint;
  timeoutMs: number;
}

export interface CatalogProvider {
  id: string;
  name: string;
  description: string;
  category: Category;
  website: string | null;
  /** Never public: where execution forwards calls. */
  baseUrl: string;
  tags: string[];
  /** The account that listed it (self-service) or that the operator named; null for operator listings. */
  ownerAccountId: string | null;
  /** Only 'active' providers are visible to callers (see liveProvider). */
  status: ProviderStatus;
  createdAt: string;
  updatedAt: string;
  endpoints: CatalogEndpoint[];
}

export interface EndpointQuality {
  uptime_pct: number;
  avg_latency_ms: number;
  error_rate_pct: number;
  total_calls: number;
}

/** What an endpoint without an endpoint_stats row (no calls yet) shows. */
export const DEFAULT_QUALITY: EndpointQuality = {
  uptime_pct: 100,
  avg_latency_ms: 0,
  error_rate_pct: 0,
  total_calls: 0,
};

export interface ProviderRow {
  id: string;
  name: string;
  description: string;
  category: Category;
  website: string | null;
  baseUrl: string;
  tags: string[];
  secretCiphertext: string;
  ownerAccountId: string | null;
  status: ProviderStatus;
}

interface ProviderDbRow {
  id: string;
  name: string;
  description: string;
  category: Category;
  website: string | null;
  base_url: string;
  tags: string[];
  owner_account_id: string | null;
  status: ProviderStatus;
  created_at: string;
  updated_at: string;
  endpoints: EndpointJson[];
}

interface EndpointJson {
  slug: string;
  method: HttpMethod;
  path: string | null;
  description: string;
  tags: string[];
  parameters: Record<string, ParameterInput>;
  response_schema: Record<string, ResponseField> | null;
  price_credits: string;
  timeout_ms: number;
}

// json_agg keeps one round trip per page; bigint travels as text so it never passes through a float.
const PROVIDER_COLUMNS = sql`p.id, p.name, p.description, p.category, p.website, p.base_url,
  to_json(p.tags) AS tags, p.owner_account_id, p.status, p.created_at, p.updated_at,
  COALESCE((
    SELECT json_agg(json_build_object(
      'slug', e.slug, 'method', e.method, 'path', e.path, 'description', e.description,
      'tags', to_json(e.tags), 'parameters', e.parameters, 'response_schema', e.response_schema,
      'price_credits', e.price_credits::text, 'timeout_ms', e.timeout_ms
    ) ORDER BY e.position, e.slug)
    FROM endpoints e WHERE e.provider_id = p.id
  ), '[]'::json) AS endpoints`;

function toProvider(row: ProviderDbRow): CatalogProvider {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    category: row.category,
    website: row.website,
    baseUrl: row.base_url,
    tags: row.tags,
    ownerAccountId: row.owner_account_id,
    status: row.status,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    endpoints: row.endpoints.map((e) => ({
      providerId: row.id,
      slug: e.slug,
      method: e.method,
      path: e.path ?? `/${e.slug}`,
      description: e.description,
      tags: e.tags,
      parameters: e.parameters,
      responseSchema: e.response_schema ?? {},
      priceCredits: BigInt(e.price_credits),
      timeoutMs: e.timeout_ms,
    })),
  };
}

async function selectProviders(ex: Executor, where: SQL, tail: SQL = sql``): Promise<CatalogProvider[]> {
  const found = await rows<ProviderDbRow>(
    ex,
    sql`SELECT ${PROVIDER_COLUMNS} FROM providers p WHERE ${where} ORDER BY p.id ${tail}`,
  );
  return found.map(toProvider);
}

/**
 * The one rule of which providers callers see (public catalogue, discovery, execution, x402, MCP): a
 * provider waiting for review (a self-service listing outside devnet) is invisible until approved.
 * `alias` is the providers table's alias in the caller's query.
 */
export function liveProvider(alias: string): SQL {
  return sql`${sql.identifier(alias)}.status = 'active'`;
}

/** One provider with its endpoints, or undefined, whatever its status (admin and owner views). */
export async function findProvider(ex: Executor, providerId: string) {
  return (await selectProviders(ex, sql`p.id = ${providerId}`))[0];
}

/** One provider as callers see it: undefined when unknown or not live. */
export async function findLiveProvider(ex: Executor, providerId: string) {
  return (await selectProviders(ex, sql`p.id = ${providerId} AND ${liveProvider('p')}`))[0];
}

/** The providers an account owns, whatever their status, in id order. */
export async function listOwnedProviders(ex: Executor, ownerAccountId: string) {
  return selectProviders(ex, sql`p.owner_account_id = ${ownerAccountId}`);
}

/** Providers an operator must look at: waiting for review, or among `alsoIds`; ordered by id. */
export async function listProvidersForReview(ex: Executor, alsoIds: readonly string[]) {
  const also =
    alsoIds.length === 0
      ? sql`false`
      : sql`p.id IN (${sql.join(
          alsoIds.map((id) => sql`${id}`),
          sql`, `,
        )})`;
  return selectProviders(ex, sql`(p.status = 'pending_review' OR ${also})`);
}

/** The whole live catalogue, ordered by provider id. */
export async function loadCatalog(ex: Executor): Promise<CatalogProvider[]> {
  return selectProviders(ex, liveProvider('p'));
}

/** A page of providers in id order after `afterId`; fetches limit + 1 so the caller knows has_more. */
export async function listProviderPage(
  ex: Executor,
  opts: { afterId?: string | undefined; category?: Category | undefined; limit: number },
): Promise<CatalogProvider[]> {
  const conditions: SQL[] = [liveProvider('p')];
  if (opts.afterId !== undefined) conditions.push(sql`p.id > ${opts.afterId}`);
  if (opts.category !== undefined) conditions.push(sql`p.category = ${opts.category}`);
  return selectProviders(ex, sql.join(conditions, sql` AND `), sql`LIMIT ${opts.limit + 1}`);
}

/** Provider and endpoint for an execution, or undefined parts when either is unknown or not live. */
export async function findEndpoint(ex: Executor, providerId: string, slug: string) {
  const provider = await findLiveProvider(ex, providerId);
  return { provider, endpoint: provider?.endpoints.find((e) => e.slug === slug) };
}

interface StatsRow {
  provider_id: string;
  endpoint_slug: string;
  uptime_pct: number;
  avg_latency_ms: number;
  error_rate_pct: number;
  total_calls: bigint;
}

export const qualityKey = (providerId: string, slug: string) => `${providerId}/${slug}`;

/**
 * Quality metrics keyed by qualityKey(provider, slug), for one provider or the whole catalogue.
 * Endpoints missing from the map have DEFAULT_QUALITY.
 */
export async function loadEndpointQuality(
  ex: Executor,
  providerId?: string,
): Promise<Map<string, EndpointQuality>> {
  const found = await rows<StatsRow>(
    ex,
    sql`SELECT provider_id, endpoint_slug, uptime_pct, avg_latency_ms, error_rate_pct, total_calls
        FROM endpoint_stats ${providerId === undefined ? sql`` : sql`WHERE provider_id = ${providerId}`}`,
  );
  return new Map(
    found.map((r) => [
      qualityKey(r.provider_id, r.endpoint_slug),
      {
        uptime_pct: Number(r.uptime_pct),
        avg_latency_ms: Number(r.avg_latency_ms),
        error_rate_pct: Number(r.error_rate_pct),
        total_calls: Number(r.total_calls),
      },
    ]),
  );
}

/** Ids equal to `base` or `base-<n>`: lets a derived id pick the first free suffix. */
export async function idsLike(ex: Executor, base: string): Promise<Set<string>> {
  const found = await rows<{ id: string }>(
    ex,
    sql`SELECT id FROM providers WHERE id = ${base} OR id LIKE ${`${base}-%`}`,
  );
  return new Set(found.map((r) => r.id));
}

export async function secretCiphertextOf(ex: Executor, providerId: string): Promise<string | undefined> {
  const row = await one<{ secret_ciphertext: string }>(
    ex,
    sql`SELECT secret_ciphertext FROM providers WHERE id = ${providerId}`,
  );
  return row?.secret_ciphertext;
}

export async function insertProviderRow(ex: Executor, p: ProviderRow, now: Date): Promise<void> {
  await ex.execute(sql`
    INSERT INTO providers (id, name, description, category, website, base_url, tags, secret_ciphertext,
                           owner_account_id, status, created_at, updated_at)
    VALUES (${p.id}, ${p.name}, ${p.description}, ${p.category}, ${p.website}, ${p.baseUrl},
            ${textArray(p.tags)}, ${p.secretCiphertext}, ${p.ownerAccountId}, ${p.status},
            ${now.toISOString()}, ${now.toISOString()})`);
}

/**
 * Replaces the descriptive fields; id, secret, status and created_at stay, and the owner too unless
 * `ownerAccountId` is given (null clears it). Returns false for an unknown id.
 */
export async function updateProviderRow(
  ex: Executor,
  p: Omit<ProviderRow, 'secretCiphertext' | 'status' | 'ownerAccountId'> & { ownerAccountId?: string | null },
  now: Date,
): Promise<boolean> {
  const owner = p.ownerAccountId === undefined ? sql`owner_account_id` : sql`${p.ownerAccountId}`;
  const row = await one(
    ex,
    sql`UPDATE providers SET name = ${p.name}, description = ${p.description}, category = ${p.category},
          website = ${p.website}, base_url = ${p.baseUrl}, tags = ${textArray(p.tags)},
          owner_account_id = ${owner}, updated_at = ${now.toISOString()}
        WHERE id = ${p.id} RETURNING id`,
  );
  return row !== undefined;
}

/** Returns false for an unknown id. updated_at moves, so other instances' caches notice the change. */
export async function updateProviderStatus(
  ex: Executor,
  providerId: string,
  status: ProviderStatus,
  now: Date,
): Promise<boolean> {
  const row = await one(
    ex,
    sql`UPDATE providers SET status = ${status}, updated_at = ${now.toISOString()}
        WHERE id = ${providerId} RETURNING id`,
  );
  return row !== undefined;
}

/** Deletes the provider (endpoints cascade) and its quality rows. Returns false for an unknown id. */
export async function deleteProviderRow(ex: Executor, providerId: string): Promise<boolean> {
  const row = await one(ex, sql`DELETE FROM providers WHERE id = ${providerId} RETURNING id`);
  if (!row) return false;
  await ex.execute(sql`DELETE FROM endpoint_stats WHERE provider_id = ${providerId}`);
  return true;
}

/**
 * Replaces the provider's endpoint set. Quality rows of endpoints that survive the replacement are
 * kept (same slug = same endpoint); those of removed endpoints go.
 */
export async function replaceEndpointRows(
  ex: Executor,
  providerId: string,
  endpoints: EndpointInput[],
  priceCredits: bigint[],
): Promise<void> {
  // The old endpoints go, and with them the quality rows of the slugs the new set drops (same slug = same
  // endpoint: its quality stays). One statement: a provider's replace is one round trip shorter.
  const slugs = JSON.stringify(endpoints.map((e) => e.slug));
  await ex.execute(sql`
    WITH dropped_stats AS (
      DELETE FROM endpoint_stats
      WHERE provider_id = ${providerId}
        AND endpoint_slug NOT IN (SELECT json_array_elements_text(${slugs}::json))
    )
    DELETE FROM endpoints WHERE provider_id = ${providerId}`);
  const records = endpoints.map((e, i) => ({
    slug: e.slug,
    method: e.method,
    path: e.path ?? null,
    description: e.description,
    tags: e.tags ?? [],
    parameters: e.parameters,
    response_schema: e.response_schema ?? null,
    price_credits: String(priceCredits[i]),
    timeout_ms: e.timeout_ms ?? 10_000,
    position: i,
  }));
  // One statement for all endpoints: the rows travel as one JSON parameter (json, not jsonb, so the
  // parameter maps keep the provider's key order).
  await ex.execute(sql`
    INSERT INTO endpoints (provider_id, slug, method, path, description, tags, parameters, response_schema,
                           price_credits, timeout_ms, position)
    SELECT ${providerId}, r.slug, r.method, r.path, r.description,
           ARRAY(SELECT json_array_elements_text(r.tags)), r.parameters, r.response_schema,
           r.price_credits, r.timeout_ms, r.position
    FROM json_to_recordset(${JSON.stringify(records)}::json) AS r(
      slug text, method text, path text, description text, tags json, parameters json,
      response_schema json, price_credits bigint, timeout_ms integer, position integer)`);
}

/** A text[] parameter (Drizzle would expand a JS array into a value list). */
function textArray(values: string[]): SQL {
  return sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}
