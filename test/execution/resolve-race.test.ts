// The endpoint cache and a catalogue change that lands while an endpoint is being read: the read's
// answer serves the call that asked (it started before the change), but is not kept, so the next call is
// charged the new price at once, not up to RESOLVE_CACHE_TTL_MS later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/index.js';
import { EndpointResolver } from '../../src/modules/execution/resolve.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { providerBody, registerProvider } from './fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('endpoint cache', () => {
  it('does not keep an answer read across a catalogue change', async () => {
    const baseUrl = 'http://127.0.0.1:9';
    const { providerId } = await registerProvider(t, baseUrl, [{ slug: 'echo', price_usdc: '0.001' }]);
    const resolver = new EndpointResolver(t.deps.secrets.encryptionKey);
    // The real database, whose answer reaches the resolver only when released: the read has happened
    // (before the change below), its answer is still on its way.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let read: () => void = () => {};
    const readDone = new Promise<void>((resolve) => {
      read = resolve;
    });
    const db = t.deps.db.orm;
    const slow = {
      execute: async (query: Parameters<typeof db.execute>[0]) => {
        const result = await db.execute(query);
        read();
        await held;
        return result;
      },
    } as unknown as Executor;
    const before = resolver.resolve(slow, providerId, 'echo');
    await readDone;

    const changed = await t.admin(
      'PUT',
      `/v1/admin/providers/${providerId}`,
      providerBody(providerId, baseUrl, [{ slug: 'echo', price_usdc: '0.002' }]),
    );
    expect(changed.statusCode).toBe(200);
    resolver.invalidate(providerId); // what `catalog.changed` does
    release();

    expect((await before).priceCredits).toBe(1_000n);
    expect((await resolver.resolve(db, providerId, 'echo')).priceCredits).toBe(2_000n);
  });
});
