// Resolves provider/endpoint for an execution, with an in-memory cache: invalidated at once on this
// instance by the 'catalog.changed' event, and by a short TTL for changes made through other instances.
// Each endpoint's parameter map is compiled once into an Ajv validator (cached by the map's JSON).
import type { ValidateFunction } from 'ajv';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/index.js';
import { one } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';
import { strictAjv } from '../../http/validation.js';
import { decryptSecret } from '../../lib/secrets.js';
import { liveProvider } from '../catalog/index.js';

/** How long another instance's catalogue change can go unseen here. */
export const RESOLVE_CACHE_TTL_MS = 5_000;

export interface ResolvedEndpoint {
  providerId: string;
  slug: string;
  method: string;
  /** scheme://host:port of the registered base URL: the only place a call is forwarded to. */
  origin: string;
  /** base URL path + endpoint path (default `/<slug>`). */
  path: string;
  priceCredits: bigint;
  timeoutMs: number;
  secret: string;
  validate: ValidateFunction;
}

interface EndpointRow {
  provider_id: string;
  base_url: string;
  secret_ciphertext: string;
  slug: string | null;
  method: string | null;
  path: string | null;
  parameters: unknown;
  price_credits: bigint | null;
  timeout_ms: number | null;
}

type ParameterSpec = Record<string, unknown> & { type?: unknown; required?: unknown };

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** JSON Schema keywords a parameter may carry besides type/required/description. */
const PASSTHROUGH = [
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'items',
  'maxItems',
  'default',
];

/**
 * The catalogue parameter map (docs/catalog.md) `{name: {type, required, description}}` → JSON Schema for the request body.
 * Unknown fields are refused (a typo should not reach the provider silently). A value that is already a
 * JSON Schema object (`{type: 'object', properties}`) is used as it is.
 */
export function parametersToSchema(parameters: unknown): Record<string, unknown> {
  if (parameters && typeof parameters === 'object' && !Array.isArray(parameters)) {
    const p = parameters as Record<string, unknown>;
    if (p.type === 'object' && p.properties && typeof p.properties === 'object') return p;
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const map = (parameters && typeof parameters === 'object' ? parameters : {}) as Record<
    string,
    ParameterSpec
  >;
  for (const [name, spec] of Object.entries(map)) {
    const prop: Record<string, unknown> = {};
    if (typeof spec?.type === 'string' && JSON_TYPES.has(spec.type.toLowerCase())) {
      prop.type = spec.type.toLowerCase();
    }
    for (const k of PASSTHROUGH) if (spec && spec[k] !== undefined) prop[k] = spec[k];
    if (typeof spec?.description === 'string') prop.description = spec.description;
    properties[name] = prop;
    if (spec?.required === true) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 5_000;

export function validatorFor(parameters: unknown): ValidateFunction {
  const key = JSON.stringify(parameters ?? {});
  let v = validators.get(key);
  if (!v) {
    try {
      v = strictAjv.compile(parametersToSchema(parameters));
    } catch {
      // A parameter map Ajv cannot compile (e.g. a bad pattern) must not make the endpoint unusable:
      // fall back to "a JSON object".
      v = strictAjv.compile({ type: 'object' });
    }
    if (validators.size >= MAX_VALIDATORS) validators.clear();
    validators.set(key, v);
  }
  return v;
}

function joinPath(basePath: string, endpointPath: string | null, slug: string): string {
  const base = basePath.replace(/\/+$/, '');
  const tail = endpointPath ?? `/${slug}`;
  return `${base}${tail.startsWith('/') ? tail : `/${tail}`}`;
}

export class EndpointResolver {
  private readonly cache = new Map<string, { value: ResolvedEndpoint; expiresAt: number }>();
  /** Bumped by every invalidation: a read that was under way across one may predate the change, so its
   *  answer serves the call that asked (which started before the change) but is not cached. */
  private invalidations = 0;

  constructor(
    private readonly encryptionKey: Buffer,
    private readonly ttlMs = RESOLVE_CACHE_TTL_MS,
  ) {}

  invalidate(providerId?: string) {
    this.invalidations += 1;
    if (!providerId) return this.cache.clear();
    for (const [k, v] of this.cache) if (v.value.providerId === providerId) this.cache.delete(k);
  }

  async resolve(ex: Executor, providerId: string, slug: string): Promise<ResolvedEndpoint> {
    const key = `${providerId}\u0000${slug}`;
    const hit = this.cache.get(key);
    const now = Date.now();
    if (hit && hit.expiresAt > now) return hit.value;
    const invalidations = this.invalidations;
    const row = await one<EndpointRow>(
      ex,
      sql`SELECT p.id AS provider_id, p.base_url, p.secret_ciphertext, e.slug, e.method, e.path, e.parameters,
                 e.price_credits, e.timeout_ms
          FROM providers p LEFT JOIN endpoints e ON e.provider_id = p.id AND e.slug = ${slug}
          WHERE p.id = ${providerId} AND ${liveProvider('p')}`,
    );
    if (!row) throw new AppError('SVC-EXE-001', `Provider ${providerId} not found`);
    if (row.slug === null || row.price_credits === null || row.method === null) {
      throw new AppError('SVC-EXE-002', `Endpoint ${slug} not found for provider ${providerId}`);
    }
    const base = new URL(row.base_url);
    const value: ResolvedEndpoint = {
      providerId: row.provider_id,
      slug: row.slug,
      method: row.method.toUpperCase(),
      origin: base.origin,
      path: joinPath(base.pathname, row.path, row.slug),
      priceCredits: BigInt(row.price_credits),
      timeoutMs: Number(row.timeout_ms ?? 10_000),
      secret: decryptSecret(this.encryptionKey, row.secret_ciphertext),
      validate: validatorFor(row.parameters),
    };
    if (this.invalidations === invalidations) this.cache.set(key, { value, expiresAt: now + this.ttlMs });
    return value;
  }
}
