// Provider sub-commands of `svc admin` (listed in src/cli-admin.ts). They call the same service
// functions as the admin API and print the same shapes.
import { readFileSync } from 'node:fs';
import { AppError } from '../../errors/catalogue.js';
import { type FieldError, fieldErrorsText } from '../../errors/field-errors.js';
import type { AdminCommand } from '../../lib/admin-command.js';
import { loadEndpointQuality } from './repo.js';
import { createProvider, deleteProvider, replaceProvider } from './service.js';
import { parseProviderInput } from './validate.js';
import { adminProviderView } from './views.js';

function option(args: Record<string, string | undefined>, name: string): string {
  const v = args[name];
  if (!v) throw new Error(`--${name} is required`);
  return v;
}

function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function readProviderFile(file: string) {
  return parseProviderInput(readJsonFile(file));
}

/** Validation errors list every field on the terminal, not only the first. */
async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const errors = err instanceof AppError ? (err.details.errors as FieldError[] | undefined) : undefined;
    if (err instanceof AppError && errors?.length) throw new Error(`${err.code}: ${fieldErrorsText(errors)}`);
    if (err instanceof AppError) throw new Error(`${err.code}: ${err.message}`);
    throw err;
  }
}

export const providerAdminCommands: AdminCommand[] = [
  {
    name: 'create-provider',
    usage: 'create-provider --file F.json',
    summary: 'create a provider (body of POST /v1/admin/providers; - reads stdin); prints its secret once',
    options: { file: { type: 'string' } },
    run: (deps, args) =>
      explained(async () => {
        const { provider, secret } = await createProvider(deps, readProviderFile(option(args, 'file')));
        return {
          ...adminProviderView(provider, await loadEndpointQuality(deps.db.orm, provider.id)),
          provider_secret: secret,
        };
      }),
    api: (args) => ({
      method: 'POST',
      path: '/v1/admin/providers',
      body: readJsonFile(option(args, 'file')),
    }),
  },
  {
    name: 'replace-provider',
    usage: 'replace-provider --provider ID --file F.json',
    summary: 'replace a provider and its endpoints (the secret is kept)',
    options: { provider: { type: 'string' }, file: { type: 'string' } },
    run: (deps, args) =>
      explained(async () => {
        const provider = await replaceProvider(
          deps,
          option(args, 'provider'),
          readProviderFile(option(args, 'file')),
        );
        return adminProviderView(provider, await loadEndpointQuality(deps.db.orm, provider.id));
      }),
    api: (args) => ({
      method: 'PUT',
      path: `/v1/admin/providers/${encodeURIComponent(option(args, 'provider'))}`,
      body: readJsonFile(option(args, 'file')),
    }),
  },
  {
    name: 'delete-provider',
    usage: 'delete-provider --provider ID',
    summary: 'delete a provider and its endpoints',
    options: { provider: { type: 'string' } },
    run: (deps, args) =>
      explained(async () => {
        await deleteProvider(deps, option(args, 'provider'));
        return { provider_id: args.provider, deleted: true };
      }),
    api: (args) => ({
      method: 'DELETE',
      path: `/v1/admin/providers/${encodeURIComponent(option(args, 'provider'))}`,
    }),
  },
];
