// An agent key (an API key with a spending policy) used through the official MCP SDK client over
// Streamable HTTP: discovery lists only what the key may call, a provider outside its allow-list is
// refused with SVC-AUTH-005, and calls over its daily budget with SVC-CREDIT-002 (key_daily); refusals
// reach no provider and charge nothing.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceCredits, expectInvariants, fund, registerProvider } from '../execution/fixtures.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  callTool,
  connect,
  type ListeningApp,
  startListeningApp,
  structured,
  toolError,
} from './fixtures.js';

let t: ListeningApp;
let allowedServer: ProviderServer;
let otherServer: ProviderServer;
let allowed: string;
let other: string;
let owner: { accountId: string; apiKey: string; keyId: string };
let agent: { id: string; key: string };
const clients: Client[] = [];

async function client(apiKey: string) {
  const c = await connect(t.url, { 'x-svc-api-key': apiKey });
  clients.push(c);
  return c;
}

const discovered = async (c: Client) =>
  (
    structured(await callTool(c, 'svc_discover', { query: 'weather forecast lookup', limit: 50 }))
      .results as {
      provider_id: string;
    }[]
  ).map((r) => r.provider_id);

beforeAll(async () => {
  t = await startListeningApp();
  allowedServer = await startProviderServer();
  otherServer = await startProviderServer();
  const spec = [{ slug: 'forecast', path: '/echo', price_usdc: '0.012345' }];
  allowed = (await registerProvider(t, allowedServer.url, spec)).providerId;
  other = (await registerProvider(t, otherServer.url, spec)).providerId;
  owner = await t.createAccount();
  await fund(t, owner.accountId, '5');
  const created = await t.inject({
    method: 'POST',
    url: '/v1/keys',
    headers: { 'x-svc-api-key': owner.apiKey },
    payload: { name: 'mcp-agent', policy: { daily_limit_usdc: '0.03', allowed_providers: [allowed] } },
  });
  expect(created.statusCode).toBe(201);
  agent = created.json().data;
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await t.close();
  await allowedServer.close();
  await otherServer.close();
});

describe('an agent key through the MCP client', () => {
  it('discovers only the providers its policy allows (the owner sees both)', async () => {
    const ownerSees = await discovered(await client(owner.apiKey));
    expect(ownerSees).toEqual(expect.arrayContaining([allowed, other]));
    const agentSees = await discovered(await client(agent.key));
    expect(agentSees).toContain(allowed);
    expect(agentSees).not.toContain(other);
  });

  it('is refused with SVC-AUTH-005 for a provider outside its allow-list, then with key_daily over its budget', async () => {
    const c = await client(agent.key);
    const before = await balanceCredits(t, owner.accountId);
    const outside = toolError(
      await callTool(c, 'svc_execute', { provider_id: other, endpoint: 'forecast', params: {} }),
    );
    expect(outside.code).toBe('SVC-AUTH-005');
    expect(otherServer.received).toHaveLength(0);
    expect(await balanceCredits(t, owner.accountId)).toBe(before);

    // 0.03 USDC a day buys two calls at 0.012345; the third is refused by the key's daily budget.
    for (let i = 0; i < 2; i++) {
      const ok = await callTool(c, 'svc_execute', { provider_id: allowed, endpoint: 'forecast', params: {} });
      expect(ok.isError, JSON.stringify(ok)).toBeFalsy();
      expect((structured(ok).svc as { charged_usdc: string }).charged_usdc).toBe('0.012345');
    }
    const over = toolError(
      await callTool(c, 'svc_execute', { provider_id: allowed, endpoint: 'forecast', params: {} }),
    );
    expect(over.code).toBe('SVC-CREDIT-002');
    expect(over.details).toMatchObject({ limitType: 'key_daily', keyId: agent.id, limitCredits: '30000' });
    expect(allowedServer.received).toHaveLength(2);
    expect(await balanceCredits(t, owner.accountId)).toBe(before - 2n * 12_345n);

    // The owner's own key, with no policy, is not held to the agent's budget.
    const mine = await callTool(await client(owner.apiKey), 'svc_execute', {
      provider_id: other,
      endpoint: 'forecast',
      params: {},
    });
    expect(mine.isError, JSON.stringify(mine)).toBeFalsy();
    await expectInvariants(t);
  });
});
