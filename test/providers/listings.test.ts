// Self-service listings in devnet: live at once, owned by the caller, invisible to other accounts,
// validated and signed exactly like the admin API's providers.
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyProviderSignature } from '../../src/modules/catalog/index.js';
import { providerInput, withEndpoint } from '../catalog/fixtures.js';
import { link } from '../deposits/helpers.js';
import { balanceCredits, execute, expectInvariants, fund } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { asAccount, echoListing } from './helpers.js';

let t: TestApp;
let server: ProviderServer;
let owner: { accountId: string; apiKey: string };
let other: { accountId: string; apiKey: string };
const changes: string[] = [];
beforeAll(async () => {
  t = await createTestApp();
  server = await startProviderServer();
  owner = await t.createAccount();
  other = await t.createAccount();
  t.deps.events.on('catalog.changed', ({ providerId }) => changes.push(providerId));
});
afterAll(async () => {
  await t.close();
  await server.close();
});

describe('self-service listings: CRUD by the owner', () => {
  it('creates a live listing with the secret shown once, lists, reads, replaces and deletes it', async () => {
    const created = await asAccount(
      t,
      owner.apiKey,
      'POST',
      '/v1/provider/listings',
      echoListing('mine-1', server.url),
    );
    expect(created.statusCode).toBe(201);
    const data = created.json().data;
    expect(data).toMatchObject({
      provider_id: 'mine-1',
      owner_account_id: owner.accountId,
      status: 'active',
      base_url: server.url,
      provider_secret: expect.stringMatching(/^svc_ps_[A-Za-z0-9]{40}$/),
    });
    expect(changes).toContain('mine-1');

    const list = await asAccount(t, owner.apiKey, 'GET', '/v1/provider/listings');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((l: { provider_id: string }) => l.provider_id)).toEqual(['mine-1']);
    const one = await asAccount(t, owner.apiKey, 'GET', '/v1/provider/listings/mine-1');
    expect(one.json().data).toMatchObject({ provider_id: 'mine-1', pending_change: null });
    // The secret is never shown again.
    expect(list.body).not.toContain(data.provider_secret);
    expect(one.body).not.toContain(data.provider_secret);

    const replaced = await asAccount(t, owner.apiKey, 'PUT', '/v1/provider/listings/mine-1', {
      ...echoListing('mine-1', server.url, '0.05'),
      name: 'Renamed listing',
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().data).toMatchObject({
      name: 'Renamed listing',
      owner_account_id: owner.accountId,
      pending_change: null,
      endpoints: [{ slug: 'echo', pricing: { price_per_call_usdc: '0.05' } }],
    });
    // Devnet: the new price is live at once.
    const pub = await t.inject({ method: 'GET', url: '/v1/providers/mine-1' });
    expect(pub.json().data.endpoints[0].pricing.price_per_call_usdc).toBe('0.05');

    const deleted = await asAccount(t, owner.apiKey, 'DELETE', '/v1/provider/listings/mine-1');
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().data).toEqual({ provider_id: 'mine-1', deleted: true });
    expect((await t.inject({ method: 'GET', url: '/v1/providers/mine-1' })).statusCode).toBe(404);
    expect((await asAccount(t, owner.apiKey, 'GET', '/v1/provider/listings')).json().data).toEqual([]);
  });

  it("answers 404 SVC-EXE-001 for another account's listing and changes nothing", async () => {
    expect(
      (await asAccount(t, owner.apiKey, 'POST', '/v1/provider/listings', echoListing('mine-2', server.url)))
        .statusCode,
    ).toBe(201);
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', { ...echoListing('mine-2', server.url), name: 'Hijacked' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await asAccount(t, other.apiKey, method, '/v1/provider/listings/mine-2', payload);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('SVC-EXE-001');
    }
    expect((await asAccount(t, other.apiKey, 'GET', '/v1/provider/listings')).json().data).toEqual([]);
    const still = await t.inject({ method: 'GET', url: '/v1/providers/mine-2' });
    expect(still.json().data.name).toBe('Listing mine-2');
    // An operator's provider without an owner is nobody's listing either.
    await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'operator-one' }));
    expect((await asAccount(t, owner.apiKey, 'GET', '/v1/provider/listings/operator-one')).statusCode).toBe(
      404,
    );
  });

  it('needs an account, and refuses an agent key with a spending policy (403 SVC-AUTH-005)', async () => {
    const anon = await t.inject({
      method: 'POST',
      url: '/v1/provider/listings',
      payload: echoListing('x', server.url),
    });
    expect(anon.statusCode).toBe(401);
    const key = await asAccount(t, owner.apiKey, 'POST', '/v1/keys', {
      name: 'agent',
      policy: { daily_limit_usdc: '1' },
    });
    const agentKey = key.json().data.key;
    for (const [method, url] of [
      ['POST', '/v1/provider/listings'],
      ['GET', '/v1/provider/listings'],
      ['PUT', '/v1/provider/payout-wallet'],
    ] as const) {
      const res = await asAccount(t, agentKey, method, url, method === 'GET' ? undefined : {});
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('SVC-AUTH-005');
    }
  });
});

describe('self-service listings: validation identical to the admin API', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['unknown category', providerInput({ category: 'weather' })],
    ['base_url with credentials', providerInput({ base_url: 'https://u:p@acme.example.com' })],
    ['duplicate endpoint slug', withEndpoint({ slug: 'forecast' })],
    ['bad price', withEndpoint({ pricing: { model: 'per_call', price_per_call_usdc: '-1' } })],
    ['unknown field', providerInput({ owner: 'me' })],
  ];
  it.each(cases)('%s: the same status and body as POST /v1/admin/providers', async (_name, body) => {
    const viaAdmin = await t.admin('POST', '/v1/admin/providers', body);
    const viaListing = await asAccount(t, owner.apiKey, 'POST', '/v1/provider/listings', body);
    expect(viaAdmin.statusCode).toBe(400);
    expect(viaListing.statusCode).toBe(viaAdmin.statusCode);
    expect(viaListing.json().error).toEqual(viaAdmin.json().error);
  });

  it('a taken provider_id is 409 SVC-VAL-007 as on the admin path', async () => {
    await t.admin('POST', '/v1/admin/providers', providerInput({ provider_id: 'taken-id' }));
    const res = await asAccount(
      t,
      owner.apiKey,
      'POST',
      '/v1/provider/listings',
      providerInput({ provider_id: 'taken-id' }),
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('SVC-VAL-007');
  });
});

describe('a listing created by a provider', () => {
  it('is discoverable and callable at its price, signed with its secret', async () => {
    const created = await asAccount(
      t,
      owner.apiKey,
      'POST',
      '/v1/provider/listings',
      echoListing('quokka-echo', server.url, '0.03'),
    );
    const secret = created.json().data.provider_secret as string;
    const found = await t.inject({
      method: 'POST',
      url: '/v1/discover',
      payload: { query: 'quokka-shaped payload' },
    });
    const hit = found.json().results.find((r: { provider_id: string }) => r.provider_id === 'quokka-echo');
    expect(hit).toMatchObject({ endpoint_slug: 'echo' });
    expect(JSON.stringify(hit)).toContain('0.03');

    await fund(t, other.accountId, '1');
    const before = await balanceCredits(t, other.accountId);
    const res = await execute(t, other.apiKey, 'quokka-echo', 'echo', { text: 'hi' });
    expect(res.statusCode).toBe(200);
    expect(await balanceCredits(t, other.accountId)).toBe(before - 30_000n);
    const seen = server.received.at(-1);
    expect(seen?.path).toBe('/echo');
    const headers = seen?.headers ?? {};
    expect(
      verifyProviderSignature(
        secret,
        String(headers['x-svc-provider-signature']),
        String(headers['x-svc-timestamp']),
        seen?.body ?? '',
      ),
    ).toBe(true);
    await expectInvariants(t);
  });
});

describe('payout wallet', () => {
  it('must be a wallet linked to the account; the address is stored lowercase', async () => {
    const wallet = privateKeyToAccount(`0x${'ab'.repeat(32)}`);
    const empty = await asAccount(t, owner.apiKey, 'GET', '/v1/provider/payout-wallet');
    expect(empty.json().data).toEqual({ wallet_address: null, updated_at: null });

    const refused = await asAccount(t, owner.apiKey, 'PUT', '/v1/provider/payout-wallet', {
      wallet_address: wallet.address,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: 'SVC-VAL-001',
      details: { errors: [{ path: 'wallet_address', message: expect.stringContaining('linked') }] },
    });
    const malformed = await asAccount(t, owner.apiKey, 'PUT', '/v1/provider/payout-wallet', {
      wallet_address: '0x12',
    });
    expect(malformed.statusCode).toBe(400);

    expect((await link(t, owner.apiKey, wallet)).statusCode).toBe(201);
    // Another account cannot name the owner's wallet.
    const foreign = await asAccount(t, other.apiKey, 'PUT', '/v1/provider/payout-wallet', {
      wallet_address: wallet.address,
    });
    expect(foreign.statusCode).toBe(400);

    const set = await asAccount(t, owner.apiKey, 'PUT', '/v1/provider/payout-wallet', {
      wallet_address: wallet.address.toUpperCase().replace('0X', '0x'),
    });
    expect(set.statusCode).toBe(200);
    expect(set.json().data).toEqual({
      wallet_address: wallet.address.toLowerCase(),
      updated_at: expect.any(String),
    });
    const read = await asAccount(t, owner.apiKey, 'GET', '/v1/provider/payout-wallet');
    expect(read.json().data.wallet_address).toBe(wallet.address.toLowerCase());
    expect(
      (await asAccount(t, other.apiKey, 'GET', '/v1/provider/payout-wallet')).json().data.wallet_address,
    ).toBeNull();
  });
});
