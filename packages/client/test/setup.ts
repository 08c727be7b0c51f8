// The real service on a real port, for the client's tests: createTestApp + listen on port 0.
import type { AddressInfo } from 'node:net';
import {
  createTestApp,
  TEST_ADMIN_TOKEN,
  type TestApp,
  type TestAppOptions,
} from '../../../test/helpers/app.js';
import { SvcClient, type SvcClientOptions } from '../src/index.js';

export interface LiveService {
  t: TestApp;
  baseUrl: string;
  admin: SvcClient;
  client(opts?: Omit<SvcClientOptions, 'baseUrl'>): SvcClient;
  close(): Promise<void>;
}

export async function startService(opts: TestAppOptions = {}): Promise<LiveService> {
  const t = await createTestApp(opts);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  // Short backoff steps keep retrying tests quick; the policy itself is the default one.
  const client = (o: Omit<SvcClientOptions, 'baseUrl'> = {}) =>
    new SvcClient({ baseUrl, retry: { baseDelayMs: 20 }, ...o });
  return { t, baseUrl, admin: client({ adminToken: TEST_ADMIN_TOKEN }), client, close: () => t.close() };
}

/** A provider whose endpoints are the test provider server's behaviours (/echo, /fail, /hang, ...). */
export async function registerProvider(
  admin: SvcClient,
  providerId: string,
  baseUrl: string,
  endpoints: { slug: string; behaviour: string; price_usdc?: string; timeout_ms?: number }[],
  about: { category?: string; description?: string } = {},
) {
  const description = about.description ?? 'Weather forecast for a city';
  await admin.adminCreateProvider({
    provider_id: providerId,
    name: `Weather ${providerId}`,
    description,
    category: about.category ?? 'data_intelligence',
    base_url: baseUrl,
    endpoints: endpoints.map((e) => ({
      slug: e.slug,
      method: 'POST',
      path: `/${e.behaviour}`,
      description,
      parameters: { city: { type: 'string', required: false, description: 'City name' } },
      pricing: { model: 'per_call', price_per_call_usdc: e.price_usdc ?? '0.01' },
      timeout_ms: e.timeout_ms ?? 2_000,
    })),
  } as Parameters<SvcClient['adminCreateProvider']>[0]);
}
