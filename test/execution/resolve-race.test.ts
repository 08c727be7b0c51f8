// The endpoint cache and a catalogue change that lands while an endpoint is being read: the read's
// answer serves the call that asked (it started before the change), but is not kept, so the next call is
// charged the new price at once, not up to RESOLVE_CACHE_TTL_MS later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EndpointResolver } from '../../src/modules/execution/resolve.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { heldReads } from '../helpers/held-reads.js';
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
    // The read happens before the change below; its answer reaches the resolver only after it.
    const db = heldReads(t.deps.db);
    const before = resolver.resolve(db.orm, providerId, 'echo');
    await db.read;

    const changed = await t.admin(
      'PUT',
      `/v1/admin/providers/${providerId}`,
      providerBody(providerId, baseUrl, [{ slug: 'echo', price_usdc: '0.002' }]),
    );
    expect(changed.statusCode).toBe(200);
    resolver.invalidate(providerId); // what `catalog.changed` does
    db.release();

    expect((await before).priceCredits).toBe(1_000n);
    expect((await resolver.resolve(t.deps.db.orm, providerId, 'echo')).priceCredits).toBe(2_000n);
  });
});
