// The admin provider body's owner_account_id, and the visibility rule for listings waiting for review.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerInput } from '../catalog/fixtures.js';
import { execute, fund } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';

let t: TestApp;
let server: ProviderServer;
beforeAll(async () => {
  t = await createTestApp();
  server = await startProviderServer();
});
afterAll(async () => {
  await t.close();
  await server.close();
});

describe('owner_account_id on the admin provider body', () => {
  it('is stored on create, shown in the admin view, kept when absent on replace and cleared by null', async () => {
    const owner = await t.createAccount();
    const created = await t.admin(
      'POST',
      '/v1/admin/providers',
      providerInput({ provider_id: 'owned-one', owner_account_id: owner.accountId }),
    );
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ owner_account_id: owner.accountId, status: 'active' });

    const replaced = await t.admin(
      'PUT',
      '/v1/admin/providers/owned-one',
      providerInput({ name: 'Renamed' }),
    );
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().data).toMatchObject({ name: 'Renamed', owner_account_id: owner.accountId });

    const cleared = await t.admin(
      'PUT',
      '/v1/admin/providers/owned-one',
      providerInput({ owner_account_id: null }),
    );
    expect(cleared.json().data.owner_account_id).toBeNull();
    // Not part of the public catalogue view.
    const pub = await t.inject({ method: 'GET', url: '/v1/providers/owned-one' });
    expect(pub.json().data).not.toHaveProperty('owner_account_id');
  });

  it('refuses an account that does not exist with 400 on owner_account_id, writing nothing', async () => {
    const created = await t.admin(
      'POST',
      '/v1/admin/providers',
      providerInput({ provider_id: 'owned-two', owner_account_id: 'acc_nobody' }),
    );
    expect(created.statusCode).toBe(400);
    expect(created.json().error).toMatchObject({
      code: 'SVC-VAL-001',
      details: { errors: [{ path: 'owner_account_id', message: expect.any(String) }] },
    });
    expect((await t.inject({ method: 'GET', url: '/v1/providers/owned-two' })).statusCode).toBe(404);

    await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'owned-three' }));
    const replaced = await t.admin(
      'PUT',
      '/v1/admin/providers/owned-three',
      providerInput({ name: 'Changed', owner_account_id: 'acc_nobody' }),
    );
    expect(replaced.statusCode).toBe(400);
    const still = await t.inject({ method: 'GET', url: '/v1/providers/owned-three' });
    expect(still.json().data.name).toBe('Acme Weather');
  });
});

describe('a provider pending review is invisible to callers', () => {
  it('is absent from the catalogue and discovery, and execute answers 404 without charging', async () => {
    const caller = await t.createAccount();
    await fund(t, caller.accountId, '1');
    const body = providerInput({
      provider_id: 'hidden-one',
      base_url: server.url,
      endpoints: [
        {
          slug: 'echo',
          method: 'POST',
          description: 'Echo a zebra-striped payload',
          parameters: {},
          pricing: { model: 'per_call', price_per_call_usdc: '0.01' },
        },
      ],
    });
    expect((await t.admin('POST', '/v1/admin/providers', body)).statusCode).toBe(201);
    await t.deps.db.orm.execute(sql`UPDATE providers SET status = 'pending_review' WHERE id = 'hidden-one'`);
    t.deps.events.emit('catalog.changed', { providerId: 'hidden-one' });

    expect((await t.inject({ method: 'GET', url: '/v1/providers/hidden-one' })).statusCode).toBe(404);
    expect(
      (await t.inject({ method: 'GET', url: '/v1/providers/hidden-one/endpoints/echo' })).statusCode,
    ).toBe(404);
    const list = await t.inject({ method: 'GET', url: '/v1/providers?limit=100' });
    expect(list.json().data.map((p: { provider_id: string }) => p.provider_id)).not.toContain('hidden-one');
    const discover = () =>
      t.inject({ method: 'POST', url: '/v1/discover', payload: { query: 'echo zebra-striped payload' } });
    const found = await discover();
    expect(found.statusCode).toBe(200);
    expect(found.json().results.map((r: { provider_id: string }) => r.provider_id)).not.toContain(
      'hidden-one',
    );

    const res = await execute(t, caller.apiKey, 'hidden-one', 'echo', {});
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('SVC-EXE-001');
    expect(server.hits('/echo')).toBe(0);

    // Made live again, it is everywhere.
    await t.deps.db.orm.execute(sql`UPDATE providers SET status = 'active' WHERE id = 'hidden-one'`);
    t.deps.events.emit('catalog.changed', { providerId: 'hidden-one' });
    expect((await execute(t, caller.apiKey, 'hidden-one', 'echo', {})).statusCode).toBe(200);
    expect((await discover()).json().results.map((r: { provider_id: string }) => r.provider_id)).toContain(
      'hidden-one',
    );
    expect(server.hits('/echo')).toBe(1);
  });
});
