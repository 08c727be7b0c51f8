// Shared setup for execution/ledger/wallet tests: register a provider pointing at a local provider
// server (through the admin API when the catalogue offers it, else straight into the tables), fund
// accounts through the admin credit route, and assert the ledger invariants.
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { encryptSecret, randomHex } from '../../src/lib/secrets.js';
import { outcomesWritten } from '../../src/modules/execution/runtime.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import type { TestApp } from '../helpers/app.js';

export interface EndpointSpec {
  slug: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path?: string;
  price_usdc?: string;
  timeout_ms?: number;
  parameters?: Record<
    string,
    { type: string; required: boolean; description: string } & Record<string, unknown>
  >;
}

export interface RegisteredProvider {
  providerId: string;
  secret: string;
}

let counter = 0;

/** The admin registration body of a local test provider (POST /v1/admin/providers). */
export function providerBody(providerId: string, baseUrl: string, endpoints: EndpointSpec[]) {
  return {
    provider_id: providerId,
    name: `Test provider ${providerId}`,
    description: 'Local test provider',
    category: 'utility',
    base_url: baseUrl,
    endpoints: endpoints.map((e) => ({
      slug: e.slug,
      method: e.method ?? 'POST',
      path: e.path ?? `/${e.slug}`,
      description: `Endpoint ${e.slug}`,
      parameters: e.parameters ?? {},
      pricing: { model: 'per_call', price_per_call_usdc: e.price_usdc ?? '0.01' },
      timeout_ms: e.timeout_ms ?? 2_000,
    })),
  };
}

export async function registerProvider(
  t: TestApp,
  baseUrl: string,
  endpoints: EndpointSpec[],
  providerId = `prov-${process.pid}-${++counter}-${randomHex(3)}`,
): Promise<RegisteredProvider> {
  const body = providerBody(providerId, baseUrl, endpoints);
  const res = await t.admin('POST', '/v1/admin/providers', body);
  if (res.statusCode === 201) {
    return { providerId: res.json().data.provider_id ?? providerId, secret: res.json().data.provider_secret };
  }
  if (res.statusCode !== 404) throw new Error(`provider registration failed: ${res.statusCode} ${res.body}`);
  // The catalogue's admin route is not there yet: write the rows as it would.
  const secret = `psk_${randomHex(24)}`;
  const db = t.deps.db.orm;
  await db.execute(
    sql`INSERT INTO providers (id, name, description, category, base_url, secret_ciphertext)
        VALUES (${providerId}, ${body.name}, ${body.description}, 'utility', ${baseUrl},
                ${encryptSecret(t.deps.secrets.encryptionKey, secret)})`,
  );
  for (const e of body.endpoints) {
    const [whole = '0', frac = ''] = e.pricing.price_per_call_usdc.split('.');
    const credits = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
    await db.execute(
      sql`INSERT INTO endpoints (provider_id, slug, method, path, parameters, price_credits, timeout_ms)
          VALUES (${providerId}, ${e.slug}, ${e.method}, ${e.path}, ${JSON.stringify(e.parameters)}::jsonb,
                  ${credits}, ${e.timeout_ms})`,
    );
  }
  return { providerId, secret };
}

export async function fund(t: TestApp, accountId: string, amountUsdc: string) {
  const res = await t.admin('POST', `/v1/admin/accounts/${accountId}/credits`, {
    amount_usdc: amountUsdc,
    description: 'test funding',
  });
  if (res.statusCode !== 201) throw new Error(`funding failed: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

/** Waits until the outcomes of the calls this app has answered are written (they follow the answer). */
export function outcomesRecorded(t: TestApp) {
  return outcomesWritten(t.app);
}

export async function expectInvariants(t: TestApp) {
  await outcomesWritten(t.app);
  expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
}

export function execute(
  t: TestApp,
  apiKey: string,
  providerId: string,
  slug: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return t.inject({
    method: 'POST',
    url: `/v1/execute/${providerId}/${slug}`,
    headers: { 'x-svc-api-key': apiKey, ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

export async function balanceCredits(t: TestApp, accountId: string): Promise<bigint> {
  const r = await t.deps.db.orm.execute(sql`SELECT balance_credits FROM accounts WHERE id = ${accountId}`);
  return (r as unknown as { rows: { balance_credits: bigint }[] }).rows[0]?.balance_credits ?? -1n;
}
