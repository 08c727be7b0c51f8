// Outside devnet (SVC_ENV=testnet): a new listing waits for an operator's approval, and a new base_url
// or a higher price waits too while the previous version stays live and keeps being charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceCredits, execute, expectInvariants, fund } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { asAccount, echoListing } from './helpers.js';

let t: TestApp;
let server: ProviderServer;
let otherServer: ProviderServer;
let owner: { accountId: string; apiKey: string };
let caller: { accountId: string; apiKey: string };
beforeAll(async () => {
  // Private addresses allowed so the listings can point at local test servers.
  t = await createTestApp({ env: { SVC_ENV: 'testnet', SVC_ALLOW_PRIVATE_PROVIDERS: '1' } });
  server = await startProviderServer();
  otherServer = await startProviderServer();
  owner = await t.createAccount();
  caller = await t.createAccount();
  await fund(t, caller.accountId, '5');
});
afterAll(async () => {
  await t.close();
  await server.close();
  await otherServer.close();
});

/** Calls the listing's echo endpoint and returns what it cost the caller, in credits. */
async function callCost(providerId: string): Promise<{ status: number; cost: bigint }> {
  const before = await balanceCredits(t, caller.accountId);
  const res = await execute(t, caller.apiKey, providerId, 'echo', { text: 'x' });
  return { status: res.statusCode, cost: before - (await balanceCredits(t, caller.accountId)) };
}

/** The operator's review queue: provider id → whether a change is held (null: a new listing). */
async function reviewQueue(): Promise<Record<string, string | null>> {
  const res = await t.admin('GET', '/v1/admin/listings');
  expect(res.statusCode).toBe(200);
  return Object.fromEntries(
    res
      .json()
      .data.map((l: { provider_id: string; status: string; pending_change: unknown }) => [
        l.provider_id,
        l.pending_change ? 'change' : l.status,
      ]),
  );
}

const publicPrice = async (providerId: string) =>
  (await t.inject({ method: 'GET', url: `/v1/providers/${providerId}` })).json().data?.endpoints[0].pricing
    .price_per_call_usdc;

describe('review of self-service listings outside devnet', () => {
  it('a new listing is pending_review, invisible and not callable until approved', async () => {
    const created = await asAccount(
      t,
      owner.apiKey,
      'POST',
      '/v1/provider/listings',
      echoListing('rev-1', server.url),
    );
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({
      status: 'pending_review',
      provider_secret: expect.any(String),
    });

    expect((await t.inject({ method: 'GET', url: '/v1/providers/rev-1' })).statusCode).toBe(404);
    const refused = await callCost('rev-1');
    expect(refused).toEqual({ status: 404, cost: 0n });
    expect(server.hits('/echo')).toBe(0);
    const mine = await asAccount(t, owner.apiKey, 'GET', '/v1/provider/listings/rev-1');
    expect(mine.json().data.status).toBe('pending_review');

    // The operator sees it waiting; only the operator sees the queue and approves.
    expect(await reviewQueue()).toEqual({ 'rev-1': 'pending_review' });
    expect((await asAccount(t, owner.apiKey, 'GET', '/v1/admin/listings')).statusCode).toBe(401);
    expect((await asAccount(t, owner.apiKey, 'POST', '/v1/admin/providers/rev-1/approve')).statusCode).toBe(
      401,
    );
    expect((await t.admin('POST', '/v1/admin/providers/nope/approve')).statusCode).toBe(404);
    const approved = await t.admin('POST', '/v1/admin/providers/rev-1/approve');
    expect(approved.statusCode).toBe(200);
    expect(approved.json().data).toMatchObject({ provider_id: 'rev-1', status: 'active' });
    expect(await reviewQueue()).toEqual({});

    expect(await publicPrice('rev-1')).toBe('0.01');
    expect(await callCost('rev-1')).toEqual({ status: 200, cost: 10_000n });
    expect(server.hits('/echo')).toBe(1);
  });

  it('a price increase waits for review while the old price stays live and charged', async () => {
    const put = await asAccount(
      t,
      owner.apiKey,
      'PUT',
      '/v1/provider/listings/rev-1',
      echoListing('rev-1', server.url, '0.02'),
    );
    expect(put.statusCode).toBe(200);
    const data = put.json().data;
    expect(data.status).toBe('active');
    expect(data.endpoints[0].pricing.price_per_call_usdc).toBe('0.01');
    expect(data.pending_change).toMatchObject({
      requested_at: expect.any(String),
      listing: { endpoints: [{ pricing: { price_per_call_usdc: '0.02' } }] },
    });

    expect(await publicPrice('rev-1')).toBe('0.01');
    expect(await callCost('rev-1')).toEqual({ status: 200, cost: 10_000n });
    expect(await reviewQueue()).toEqual({ 'rev-1': 'change' });

    const approved = await t.admin('POST', '/v1/admin/providers/rev-1/approve');
    expect(approved.json().data.endpoints[0].pricing.price_per_call_usdc).toBe('0.02');
    expect(await publicPrice('rev-1')).toBe('0.02');
    expect(await callCost('rev-1')).toEqual({ status: 200, cost: 20_000n });
    const mine = await asAccount(t, owner.apiKey, 'GET', '/v1/provider/listings/rev-1');
    expect(mine.json().data.pending_change).toBeNull();
    expect(await reviewQueue()).toEqual({});
  });

  it('a new base_url waits for review; calls keep going to the old one until approved', async () => {
    const put = await asAccount(t, owner.apiKey, 'PUT', '/v1/provider/listings/rev-1', {
      ...echoListing('rev-1', otherServer.url, '0.02'),
    });
    expect(put.json().data).toMatchObject({
      base_url: server.url,
      pending_change: { listing: { base_url: otherServer.url } },
    });
    const hitsBefore = server.hits('/echo');
    expect((await callCost('rev-1')).status).toBe(200);
    expect(server.hits('/echo')).toBe(hitsBefore + 1);
    expect(otherServer.hits('/echo')).toBe(0);

    await t.admin('POST', '/v1/admin/providers/rev-1/approve');
    expect((await callCost('rev-1')).status).toBe(200);
    expect(otherServer.hits('/echo')).toBe(1);
  });

  it('a malformed change is refused with the catalogue errors before any review', async () => {
    const res = await asAccount(t, owner.apiKey, 'PUT', '/v1/provider/listings/rev-1', {
      ...echoListing('rev-1', otherServer.url, '1.0000001'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.errors[0].path).toBe('endpoints.0.pricing.price_per_call_usdc');
    const mine = await asAccount(t, owner.apiKey, 'GET', '/v1/provider/listings/rev-1');
    expect(mine.json().data.pending_change).toBeNull();
  });

  it('a cheaper price or new texts apply at once', async () => {
    const put = await asAccount(t, owner.apiKey, 'PUT', '/v1/provider/listings/rev-1', {
      ...echoListing('rev-1', otherServer.url, '0.005'),
      description: 'Now cheaper',
    });
    expect(put.json().data).toMatchObject({ description: 'Now cheaper', pending_change: null });
    expect(await publicPrice('rev-1')).toBe('0.005');
    expect(await callCost('rev-1')).toEqual({ status: 200, cost: 5_000n });
    await expectInvariants(t);
  });
});

describe('the SSRF policy outside devnet', () => {
  it('refuses a private base_url on the listing path exactly as on the admin path', async () => {
    const strict = await createTestApp({ env: { SVC_ENV: 'testnet' } });
    try {
      const account = await strict.createAccount();
      const body = echoListing('ssrf-1', 'http://127.0.0.1:9');
      const viaAdmin = await strict.admin('POST', '/v1/admin/providers', body);
      const viaListing = await asAccount(strict, account.apiKey, 'POST', '/v1/provider/listings', body);
      expect(viaAdmin.statusCode).toBe(400);
      expect(viaListing.statusCode).toBe(400);
      expect(viaListing.json().error).toEqual(viaAdmin.json().error);
      expect(viaListing.json().error.details.errors[0].path).toBe('base_url');
    } finally {
      await strict.close();
    }
  });
});
