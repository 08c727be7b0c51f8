// Spending policies per API key (DESIGN.md section 17): budgets enforced inside the debit under real
// concurrency, refunds giving budget back, allow-lists, expiry to the second, validation, and the
// management refusals of an agent key. Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { balanceCredits, execute, expectInvariants, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';

const env = { SVC_RATE_LIMIT_MULTIPLIER: '10000' };
const clock = new ManualClock(new Date('2026-11-23T12:00:00.000Z'));
let t: TestApp;
let server: ProviderServer;
let providerId: string;
let otherProviderId: string;

beforeAll(async () => {
  t = await createTestApp({ env, clock });
  server = await startProviderServer({ record: false });
  // Generous timeouts: on PGlite the database runs on this event loop and delays everything else.
  providerId = (
    await registerProvider(t, server.url, [
      { slug: 'echo', price_usdc: '0.01', timeout_ms: 20_000 },
      { slug: 'fail', price_usdc: '0.01', timeout_ms: 20_000 },
      { slug: 'pricey', path: '/echo', price_usdc: '0.5', timeout_ms: 20_000 },
    ])
  ).providerId;
  otherProviderId = (await registerProvider(t, server.url, [{ slug: 'echo', price_usdc: '0.01' }]))
    .providerId;
});

afterAll(async () => {
  await t?.close();
  await server?.close();
});

async function keyWithPolicy(ownerKey: string, policy: Record<string, unknown>) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/keys',
    headers: { 'x-svc-api-key': ownerKey },
    payload: { name: 'agent', policy },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; key: string; policy: Record<string, unknown> };
}

async function keyListed(ownerKey: string, keyId: string) {
  const res = await t.inject({ method: 'GET', url: '/v1/keys', headers: { 'x-svc-api-key': ownerKey } });
  expect(res.statusCode).toBe(200);
  return (
    res.json().data as { id: string; policy: unknown; usage: { today_usdc: string; total_usdc: string } }[]
  ).find((k) => k.id === keyId);
}

function countBy(statuses: number[]) {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

describe('key budgets under concurrency', () => {
  it('40 calls at once through a key with a daily budget for 10: exactly 10 charged', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '5');
    const agent = await keyWithPolicy(acc.apiKey, { daily_limit_usdc: '0.1' });
    expect(agent.policy).toMatchObject({ daily_limit_usdc: '0.100000', total_limit_usdc: null });

    const results = await Promise.all(
      Array.from({ length: 40 }, () => execute(t, agent.key, providerId, 'echo', {})),
    );
    expect(countBy(results.map((r) => r.statusCode))).toEqual({ 200: 10, 402: 30 });
    const refused = results.find((r) => r.statusCode === 402)?.json();
    expect(refused.code).toBe('SVC-CREDIT-002');
    expect(refused.details).toMatchObject({ limitType: 'key_daily', keyId: agent.id });
    expect(await balanceCredits(t, acc.accountId)).toBe(5_000_000n - 100_000n);
    expect((await keyListed(acc.apiKey, agent.id))?.usage).toEqual({
      today_usdc: '0.100000',
      total_usdc: '0.100000',
    });
    // The owner's own key has no policy: the account is not held back by its agent's budget.
    expect((await execute(t, acc.apiKey, providerId, 'echo', {})).statusCode).toBe(200);
    await expectInvariants(t);
  });

  it('a total budget is never overshot, and a refund gives the budget back', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '5');
    const agent = await keyWithPolicy(acc.apiKey, { total_limit_usdc: '0.05' });
    const failed = await execute(t, agent.key, providerId, 'fail', {});
    expect(failed.statusCode).toBe(502);
    expect((await keyListed(acc.apiKey, agent.id))?.usage.total_usdc).toBe('0.000000');

    const results = await Promise.all(
      Array.from({ length: 20 }, () => execute(t, agent.key, providerId, 'echo', {})),
    );
    expect(countBy(results.map((r) => r.statusCode))).toEqual({ 200: 5, 402: 15 });
    expect(results.find((r) => r.statusCode === 402)?.json().details.limitType).toBe('key_total');
    expect((await keyListed(acc.apiKey, agent.id))?.usage.total_usdc).toBe('0.050000');
    expect(await balanceCredits(t, acc.accountId)).toBe(5_000_000n - 50_000n);
    await expectInvariants(t);
  });

  it('a per-call maximum refuses a dearer endpoint and charges nothing', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '5');
    const agent = await keyWithPolicy(acc.apiKey, { per_call_max_usdc: '0.1' });
    const before = server.hits('/echo');
    const res = await execute(t, agent.key, providerId, 'pricey', {});
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({
      code: 'SVC-CREDIT-002',
      details: { limitType: 'key_per_call', keyId: agent.id },
    });
    expect(server.hits('/echo')).toBe(before);
    expect(await balanceCredits(t, acc.accountId)).toBe(5_000_000n);
    expect((await execute(t, agent.key, providerId, 'echo', {})).statusCode).toBe(200);
  });

  it('removing the policy lifts the budget; putting one back counts what the key already spent', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '5');
    const agent = await keyWithPolicy(acc.apiKey, { total_limit_usdc: '0.02' });
    for (let i = 0; i < 2; i++)
      expect((await execute(t, agent.key, providerId, 'echo', {})).statusCode).toBe(200);
    expect((await execute(t, agent.key, providerId, 'echo', {})).statusCode).toBe(402);
    const put = (policy: unknown) =>
      t.inject({
        method: 'PUT',
        url: `/v1/keys/${agent.id}/policy`,
        headers: { 'x-svc-api-key': acc.apiKey },
        payload: { policy },
      });
    const removed = await put(null);
    expect(removed.statusCode).toBe(200);
    expect(removed.json().data.policy).toBeNull();
    expect((await execute(t, agent.key, providerId, 'echo', {})).statusCode).toBe(200);
    const again = await put({ total_limit_usdc: '0.04' });
    expect(again.json().data).toMatchObject({
      policy: { total_limit_usdc: '0.040000' },
      usage: { total_usdc: '0.030000' },
    });
    expect((await execute(t, agent.key, providerId, 'echo', {})).statusCode).toBe(200);
    expect((await execute(t, agent.key, providerId, 'echo', {})).statusCode).toBe(402);
  });
});

describe('allow-lists and expiry', () => {
  it('a provider or category outside the lists is 403 SVC-AUTH-005 and reaches no provider', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const byProvider = await keyWithPolicy(acc.apiKey, { allowed_providers: [providerId] });
    const byCategory = await keyWithPolicy(acc.apiKey, { allowed_categories: ['weather'] });
    const before = server.hits('/echo');
    const refused = await execute(t, byProvider.key, otherProviderId, 'echo', {});
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('SVC-AUTH-005');
    const refusedCategory = await execute(t, byCategory.key, providerId, 'echo', {});
    expect(refusedCategory.statusCode).toBe(403);
    expect(server.hits('/echo')).toBe(before);
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
    expect((await execute(t, byProvider.key, providerId, 'echo', {})).statusCode).toBe(200);
  });

  it('an expired key is 401 SVC-AUTH-001 from its expiry second on, and charges nothing', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const expiresAt = new Date(clock.now().getTime() + 60_000);
    const agent = await keyWithPolicy(acc.apiKey, { expires_at: expiresAt.toISOString() });
    clock.set(new Date(expiresAt.getTime() - 1000));
    expect((await execute(t, agent.key, providerId, 'echo', {})).statusCode).toBe(200);
    clock.set(expiresAt);
    const res = await execute(t, agent.key, providerId, 'echo', {});
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('SVC-AUTH-001');
    const other = await t.inject({
      method: 'GET',
      url: '/v1/wallet/balance',
      headers: { 'x-svc-api-key': agent.key },
    });
    expect(other.statusCode).toBe(401);
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n - 10_000n);
    clock.set(new Date('2026-11-23T12:00:00.000Z'));
  });
});

describe('policy validation and management refusals', () => {
  it.each([
    [{ daily_limit_usdc: '-1' }],
    [{ total_limit_usdc: 'ten' }],
    [{ per_call_max_usdc: 0.5 }],
    [{ expires_at: '2020-01-01T00:00:00Z' }],
    [{ daily_limit_usdc: '1', spend_everything: true }],
    [{ allowed_providers: 'one' }],
  ])('refuses the policy %j with 400 SVC-VAL-001 and creates no key', async (policy) => {
    const acc = await t.createAccount();
    const res = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { name: 'bad', policy },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('SVC-VAL-001');
    const list = await t.inject({ method: 'GET', url: '/v1/keys', headers: { 'x-svc-api-key': acc.apiKey } });
    expect(list.json().data).toHaveLength(1);
  });

  it('PUT on an unknown key is 404 SVC-AUTH-002, a bad policy 400', async () => {
    const acc = await t.createAccount();
    const unknown = await t.inject({
      method: 'PUT',
      url: '/v1/keys/key_nope/policy',
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { policy: {} },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('SVC-AUTH-002');
    const bad = await t.inject({
      method: 'PUT',
      url: `/v1/keys/${acc.keyId}/policy`,
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { policy: { daily_limit_usdc: '-5' } },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('a key with a policy cannot manage keys, limits or alerts (403 SVC-AUTH-005)', async () => {
    const acc = await t.createAccount();
    const agent = await keyWithPolicy(acc.apiKey, {});
    const as = { 'x-svc-api-key': agent.key };
    const attempts = [
      { method: 'GET' as const, url: '/v1/keys' },
      { method: 'POST' as const, url: '/v1/keys', payload: { name: 'escape' } },
      { method: 'PUT' as const, url: `/v1/keys/${agent.id}/policy`, payload: { policy: null } },
      { method: 'DELETE' as const, url: `/v1/keys/${acc.keyId}` },
      { method: 'PUT' as const, url: '/v1/billing/limits', payload: { daily_limit_usdc: null } },
      { method: 'PUT' as const, url: '/v1/billing/alerts', payload: {} },
    ];
    for (const a of attempts) {
      const res = await t.inject({ ...a, headers: as });
      expect(res.statusCode, `${a.method} ${a.url}`).toBe(403);
      expect(res.json().error.code).toBe('SVC-AUTH-005');
    }
    const listed = await keyListed(acc.apiKey, agent.id);
    expect(listed?.policy).not.toBeNull();
    expect(listed?.usage).toEqual({ today_usdc: '0.000000', total_usdc: '0.000000' });
    // The owner's key, without a policy, still manages everything.
    expect(
      (await t.inject({ method: 'GET', url: '/v1/keys', headers: { 'x-svc-api-key': acc.apiKey } }))
        .statusCode,
    ).toBe(200);
  });

  it('allowed_only discovery through a key with a policy lists only what the key may call', async () => {
    const acc = await t.createAccount();
    const agent = await keyWithPolicy(acc.apiKey, {
      allowed_providers: [providerId],
      per_call_max_usdc: '0.1',
    });
    const discover = (key: string, allowedOnly: boolean) =>
      t.inject({
        method: 'POST',
        url: '/v1/discover',
        headers: { 'x-svc-api-key': key },
        payload: { filters: { category: 'utility' }, limit: 50, allowed_only: allowedOnly },
      });
    const mine = (res: Awaited<ReturnType<typeof discover>>) =>
      (res.json().results as { provider_id: string; endpoint_slug: string }[])
        .filter((r) => r.provider_id === providerId || r.provider_id === otherProviderId)
        .map((r) => `${r.provider_id === providerId ? 'p' : 'other'}/${r.endpoint_slug}`)
        .sort();
    const all = await discover(agent.key, false);
    expect(all.statusCode, all.body).toBe(200);
    expect(mine(all)).toEqual(['other/echo', 'p/echo', 'p/fail', 'p/pricey']);
    expect(mine(await discover(agent.key, true))).toEqual(['p/echo', 'p/fail']);
    // A key without a policy may call everything: allowed_only changes nothing.
    expect(mine(await discover(acc.apiKey, true))).toEqual(['other/echo', 'p/echo', 'p/fail', 'p/pricey']);
  });
});
