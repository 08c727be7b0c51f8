// Catalogue writes: create, replace, delete, and register (create-or-update, used by the bundled
// samples). The admin API, the CLI and the samples all come through here. Every write is one
// transaction and is announced on `catalog.changed` after it commits.

import { isUniqueViolation, pgErrorCode, type Tx } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { providerEgressPolicy, providerUrlRefusal } from '../../lib/egress.js';
import { usdcToCredits } from '../../lib/money.js';
import { decryptSecret, encryptSecret, randomBase62 } from '../../lib/secrets.js';
import {
  type CatalogProvider,
  deleteProviderRow,
  findProvider,
  idsLike,
  insertProviderRow,
  type ProviderRow,
  replaceEndpointRows,
  secretCiphertextOf,
  updateProviderRow,
  updateProviderStatus,
} from './repo.js';
import type { AdminProviderInput, ProviderInput, ProviderStatus } from './schemas.js';
import { checkProviderInput } from './validate.js';

type CatalogDeps = Pick<AppDeps, 'db' | 'clock' | 'events' | 'secrets' | 'config'>;

/** The SSRF policy on base_url (src/lib/egress.ts), reported like any other field error. */
async function checkProviderEgress(deps: CatalogDeps, input: ProviderInput): Promise<void> {
  const refusal = await providerUrlRefusal(input.base_url, providerEgressPolicy(deps.config));
  if (refusal) {
    throw new AppError('SVC-VAL-001', `base_url ${refusal}`, {
      errors: [{ path: 'base_url', message: refusal }],
    });
  }
}

export interface ProviderWithSecret {
  provider: CatalogProvider;
  /** The provider secret in clear: shown once at creation. */
  secret: string;
}

const newProviderSecret = () => `svc_ps_${randomBase62(40)}`;

/** "Acme Weather, Inc." -> "acme-weather-inc": a readable id when the admin gives none. */
export function slugifyProviderName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '');
  return slug || 'provider';
}

function rowOf(
  input: ProviderInput,
  id: string,
): Omit<ProviderRow, 'secretCiphertext' | 'ownerAccountId' | 'status'> {
  return {
    id,
    name: input.name,
    description: input.description,
    category: input.category,
    website: input.website ?? null,
    baseUrl: input.base_url.replace(/\/+$/, ''),
    tags: [...new Set(input.tags ?? [])],
  };
}

const pricesOf = (input: ProviderInput) =>
  input.endpoints.map((e) => usdcToCredits(e.pricing.price_per_call_usdc));

/** owner_account_id names no account: the foreign key refused it, the transaction wrote nothing. */
function rethrowUnknownOwner(err: unknown): never {
  if (pgErrorCode(err) === '23503') {
    throw new AppError('SVC-VAL-001', 'owner_account_id names no account', {
      errors: [{ path: 'owner_account_id', message: 'names no account' }],
    });
  }
  throw err;
}

function notFound(providerId: string): AppError {
  return new AppError('SVC-EXE-001', `Provider ${providerId} not found`);
}

/**
 * Creates a provider with a fresh secret, owned by `input.owner_account_id` (if any) and live unless
 * `status` says it waits for review. 409 SVC-VAL-007 when the given id is taken; 400 when the owner
 * names no account.
 */
export async function createProvider(
  deps: CatalogDeps,
  input: AdminProviderInput,
  status: ProviderStatus = 'active',
): Promise<ProviderWithSecret> {
  checkProviderInput(input);
  await checkProviderEgress(deps, input);
  const secret = newProviderSecret();
  const ciphertext = encryptSecret(deps.secrets.encryptionKey, secret);
  const derivedBase = slugifyProviderName(input.name);
  // A derived id may lose a race with a concurrent create of the same name: pick the next suffix.
  for (let attempt = 0; ; attempt++) {
    try {
      const provider = await deps.db.orm.transaction(async (tx) => {
        const id = input.provider_id ?? freeId(derivedBase, await idsLike(tx, derivedBase));
        const now = deps.clock.now();
        const row = {
          ...rowOf(input, id),
          secretCiphertext: ciphertext,
          ownerAccountId: input.owner_account_id ?? null,
          status,
        };
        await insertProviderRow(tx, row, now);
        await replaceEndpointRows(tx, id, input.endpoints, pricesOf(input));
        return findProvider(tx, id);
      });
      if (!provider) throw new Error('provider vanished inside its own transaction');
      deps.events.emit('catalog.changed', { providerId: provider.id });
      return { provider, secret };
    } catch (err) {
      if (!isUniqueViolation(err)) rethrowUnknownOwner(err);
      if (input.provider_id !== undefined) {
        throw new AppError('SVC-VAL-007', `Provider ${input.provider_id} already exists`, {
          errors: [{ path: 'provider_id', message: 'is already taken' }],
        });
      }
      if (attempt >= 4) throw err;
    }
  }
}

function freeId(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Every check a provider definition must pass before it is stored (the same for the admin API, the CLI,
 * the samples and self-service listings): the field checks, and on a replace the path id. Answers 400
 * SVC-VAL-001 with every field error. Writes nothing.
 */
export async function validateProviderInput(
  deps: CatalogDeps,
  input: ProviderInput,
  pathProviderId?: string,
): Promise<void> {
  if (
    pathProviderId !== undefined &&
    input.provider_id !== undefined &&
    input.provider_id !== pathProviderId
  ) {
    throw new AppError('SVC-VAL-001', 'provider_id must match the provider id in the path', {
      errors: [{ path: 'provider_id', message: 'must match the provider id in the path' }],
    });
  }
  checkProviderInput(input);
  await checkProviderEgress(deps, input);
}

export interface ReplaceOptions {
  /** Also set the status (an approval makes the listing live with its reviewed change). */
  status?: ProviderStatus;
  /** More writes that must commit or roll back with the replace (e.g. dropping a reviewed change). */
  alsoInTransaction?: (tx: Tx) => Promise<void>;
}

/**
 * Full replace of a provider's definition and endpoints; the secret and status stay, and the owner
 * unless `input.owner_account_id` is given (null clears it). 404 SVC-EXE-001.
 */
export async function replaceProvider(
  deps: CatalogDeps,
  providerId: string,
  input: AdminProviderInput,
  opts: ReplaceOptions = {},
): Promise<CatalogProvider> {
  await validateProviderInput(deps, input, providerId);
  const row = { ...rowOf(input, providerId), ownerAccountId: input.owner_account_id };
  const provider = await deps.db.orm
    .transaction(async (tx) => {
      const now = deps.clock.now();
      if (!(await updateProviderRow(tx, row, now))) return undefined;
      await replaceEndpointRows(tx, providerId, input.endpoints, pricesOf(input));
      if (opts.status !== undefined) await updateProviderStatus(tx, providerId, opts.status, now);
      await opts.alsoInTransaction?.(tx);
      return findProvider(tx, providerId);
    })
    .catch(rethrowUnknownOwner);
  if (!provider) throw notFound(providerId);
  deps.events.emit('catalog.changed', { providerId });
  return provider;
}

/** Sets a provider's status (an operator approving a listing). 404 SVC-EXE-001 for an unknown id. */
export async function setProviderStatus(
  deps: CatalogDeps,
  providerId: string,
  status: ProviderStatus,
): Promise<CatalogProvider> {
  const provider = await deps.db.orm.transaction(async (tx) => {
    if (!(await updateProviderStatus(tx, providerId, status, deps.clock.now()))) return undefined;
    return findProvider(tx, providerId);
  });
  if (!provider) throw notFound(providerId);
  deps.events.emit('catalog.changed', { providerId });
  return provider;
}

/** Deletes a provider and its endpoints. 404 SVC-EXE-001 for an unknown id. */
export async function deleteProvider(deps: CatalogDeps, providerId: string): Promise<void> {
  const deleted = await deps.db.orm.transaction((tx) => deleteProviderRow(tx, providerId));
  if (!deleted) throw notFound(providerId);
  deps.events.emit('catalog.changed', { providerId });
}

/** The provider's secret in clear (to sign forwarded calls). 404 SVC-EXE-001 for an unknown id. */
export async function providerSecret(
  deps: Pick<AppDeps, 'db' | 'secrets'>,
  providerId: string,
): Promise<string> {
  const ciphertext = await secretCiphertextOf(deps.db.orm, providerId);
  if (ciphertext === undefined) throw notFound(providerId);
  return decryptSecret(deps.secrets.encryptionKey, ciphertext);
}

/**
 * Creates the provider (input.provider_id required) or, when it exists, replaces its definition
 * keeping its secret. Returns the secret either way: the bundled samples need it to verify calls.
 */
export async function registerProvider(
  deps: CatalogDeps,
  input: ProviderInput & { provider_id: string },
): Promise<ProviderWithSecret & { created: boolean }> {
  try {
    const provider = await replaceProvider(deps, input.provider_id, input);
    return { provider, secret: await providerSecret(deps, input.provider_id), created: false };
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'SVC-EXE-001')) throw err;
  }
  try {
    return { ...(await createProvider(deps, input)), created: true };
  } catch (err) {
    // Another instance registered it between our two statements: update instead.
    if (!(err instanceof AppError && err.code === 'SVC-VAL-007')) throw err;
    const provider = await replaceProvider(deps, input.provider_id, input);
    return { provider, secret: await providerSecret(deps, input.provider_id), created: false };
  }
}
