// The MCP server over Streamable HTTP, driven by the official SDK Client against the real app on a port.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceCredits, expectInvariants, fund, registerProvider } from '../execution/fixtures.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  callTool,
  connect,
  type ListeningApp,
  OutputSchemas,
  startListeningApp,
  structured,
  toolError,
} from './fixtures.js';

const TOOL_NAMES = [
  'svc_auth_status',
  'svc_balance',
  'svc_call_history',
  'svc_deposit_info',
  'svc_discover',
  'svc_execute',
  'svc_get_endpoint',
  'svc_submit_deposit',
];

let t: ListeningApp;
let provider: ProviderServer;
let providerId: string;
let tools: Tool[];
let schemas: OutputSchemas;
const clients: Client[] = [];

async function client(headers: Record<string, string> = {}) {
  const c = await connect(t.url, headers);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  t = await startListeningApp();
  provider = await startProviderServer();
  providerId = (
    await registerProvider(t, provider.url, [
      {
        slug: 'echo',
        price_usdc: '0.012345',
        parameters: { city: { type: 'string', required: true, description: 'city name' } },
      },
      { slug: 'bad-request', price_usdc: '0.5' },
    ])
  ).providerId;
  const anonymous = await client();
  tools = (await anonymous.listTools()).tools;
  schemas = new OutputSchemas(tools);
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await t.close();
  await provider.close();
});

describe('tools/list', () => {
  it('lists the eight tools, each with a description, an input schema and an output schema', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      // Admits both the result and {error} (the client validates error results too).
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.outputSchema?.anyOf).toHaveLength(2);
    }
  });

  it("takes each result schema from its route's own response schema", () => {
    const result = (name: string) =>
      (
        tools.find((tool) => tool.name === name)?.outputSchema?.anyOf as { properties?: object }[] | undefined
      )?.[0] ?? {};
    expect(Object.keys(result('svc_balance').properties ?? {})).toContain('balance_usdc');
    expect(Object.keys(result('svc_discover').properties ?? {})).toEqual(['results', 'meta']);
    expect(Object.keys(result('svc_call_history').properties ?? {})).toEqual(['data', 'pagination']);
    expect(Object.keys(result('svc_get_endpoint').properties ?? {})).toContain('pricing');
    expect(Object.keys(result('svc_auth_status').properties ?? {})).toContain('rate_limit');
    expect(Object.keys(result('svc_execute').properties ?? {})).toEqual(['svc', 'data']);
  });

  it('answers GET and DELETE /mcp with 405 (stateless server: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('offers a find-and-call prompt', async () => {
    const c = await client();
    const prompt = await c.getPrompt({ name: 'find_and_call', arguments: { task: 'weather in Paris' } });
    const text = (prompt.messages[0]?.content as { text?: string } | undefined)?.text;
    expect(text).toContain('weather in Paris');
    expect(text).toContain('svc_execute');
  });
});

describe('discover → execute → balance → history', () => {
  it('charges exactly the endpoint price, and every result fits its output schema', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const c = await client({ 'x-svc-api-key': acc.apiKey });

    const status = await callTool(c, 'svc_auth_status');
    schemas.expectValid('svc_auth_status', status);
    expect(structured(status)).toMatchObject({ tier: 'authenticated', account_id: acc.accountId });

    const found = await callTool(c, 'svc_discover', { query: 'echo endpoint', limit: 50 });
    schemas.expectValid('svc_discover', found);
    const results = structured(found).results as { provider_id: string; endpoint_slug: string }[];
    expect(results.some((r) => r.provider_id === providerId && r.endpoint_slug === 'echo')).toBe(true);

    const detail = await callTool(c, 'svc_get_endpoint', { provider_id: providerId, endpoint: 'echo' });
    schemas.expectValid('svc_get_endpoint', detail);
    expect(structured(detail)).toMatchObject({ pricing: { price_per_call_usdc: '0.012345' } });

    const executed = await callTool(c, 'svc_execute', {
      provider_id: providerId,
      endpoint: 'echo',
      params: { city: 'Paris' },
      idempotency_key: 'mcp-flow-1',
    });
    schemas.expectValid('svc_execute', executed);
    expect(executed.isError).toBeFalsy();
    const body = structured(executed) as { svc: Record<string, unknown>; data: { received: unknown } };
    expect(body.svc).toMatchObject({ charged_usdc: '0.012345', remaining_balance_usdc: '0.987655' });
    expect(body.data.received).toEqual({ city: 'Paris' });

    // The same idempotency key again: the first answer, no second charge.
    const replay = await callTool(c, 'svc_execute', {
      provider_id: providerId,
      endpoint: 'echo',
      params: { city: 'Paris' },
      idempotency_key: 'mcp-flow-1',
    });
    expect((structured(replay) as { svc: { call_id: string } }).svc.call_id).toBe(body.svc.call_id);

    const balance = await callTool(c, 'svc_balance');
    schemas.expectValid('svc_balance', balance);
    expect(structured(balance)).toMatchObject({ balance_usdc: '0.987655', total_spent_usdc: '0.012345' });
    expect(await balanceCredits(t, acc.accountId)).toBe(987_655n);

    const history = await callTool(c, 'svc_call_history', { type: 'call' });
    schemas.expectValid('svc_call_history', history);
    const page = structured(history) as { data: Record<string, unknown>[]; pagination: unknown };
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({
      type: 'call',
      amount_usdc: '-0.012345',
      call_id: body.svc.call_id,
      provider_id: providerId,
    });
    expect(page.pagination).toEqual({ has_more: false, next_cursor: null });
    await expectInvariants(t);
  });

  it('deposit tools answer their route (its error until the route exists), in their output schema', async () => {
    const acc = await t.createAccount();
    const c = await client({ 'x-svc-api-key': acc.apiKey });
    const info = await callTool(c, 'svc_deposit_info');
    schemas.expectValid('svc_deposit_info', info);
    const submitted = await callTool(c, 'svc_submit_deposit', { tx_hash: `0x${'ab'.repeat(32)}` });
    schemas.expectValid('svc_submit_deposit', submitted);
    for (const result of [info, submitted]) {
      if (result.isError) expect(toolError(result).code).toMatch(/^SVC-(VAL-006|PAY-00[2-6]|SYS-002)$/);
    }
  });

  it('a provider 4xx is charged and returned in the execute shape, flagged as an error', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const c = await client({ 'x-svc-api-key': acc.apiKey });
    const result = await callTool(c, 'svc_execute', {
      provider_id: providerId,
      endpoint: 'bad-request',
      params: {},
    });
    schemas.expectValid('svc_execute', result);
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({
      svc: { charged_usdc: '0.500000' },
      data: { error: 'bad input' },
    });
    expect(await balanceCredits(t, acc.accountId)).toBe(500_000n);
  });
});

describe('errors as tool results', () => {
  it('anonymous svc_execute is refused with SVC-AUTH-001 and nothing reaches the provider', async () => {
    const c = await client();
    const before = provider.hits('/echo');
    const result = await callTool(c, 'svc_execute', {
      provider_id: providerId,
      endpoint: 'echo',
      params: {},
    });
    schemas.expectValid('svc_execute', result);
    expect(toolError(result).code).toBe('SVC-AUTH-001');
    expect(provider.hits('/echo')).toBe(before);
  });

  it('arguments outside the input schema are SVC-MCP-001 with the failing paths; nothing is charged', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const c = await client({ 'x-svc-api-key': acc.apiKey });
    const cases: [string, Record<string, unknown>, string][] = [
      ['svc_execute', { provider_id: providerId, endpoint: 'echo' }, 'params'],
      ['svc_execute', { provider_id: providerId, endpoint: 'echo', params: 'city=Paris' }, 'params'],
      ['svc_discover', { query: 'echo', limit: 500 }, 'limit'],
      ['svc_discover', { query: 'echo', category: 'nope' }, 'category'],
      ['svc_call_history', { limit: 10, colour: 'red' }, 'colour'],
      ['svc_submit_deposit', { tx_hash: '0x1234' }, 'tx_hash'],
    ];
    for (const [name, args, path] of cases) {
      const result = await callTool(c, name, args);
      schemas.expectValid(name, result);
      const error = toolError(result);
      expect(error.code, name).toBe('SVC-MCP-001');
      expect((error.details.errors as { path: string }[]).map((e) => e.path)).toContain(path);
    }
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
  });

  it('params that do not fit the endpoint are the route own SVC-EXE-003, uncharged', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const c = await client({ 'x-svc-api-key': acc.apiKey });
    const result = await callTool(c, 'svc_execute', {
      provider_id: providerId,
      endpoint: 'echo',
      params: {},
    });
    expect(toolError(result).code).toBe('SVC-EXE-003');
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
  });

  it('an unknown or revoked API key is SVC-AUTH-001 on paid tools, from the next call on', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const created = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { 'x-svc-api-key': acc.apiKey },
      payload: { name: 'agent' },
    });
    expect(created.statusCode).toBe(201);
    const agentKey = created.json().data as { id: string; key: string };
    const agent = await client({ 'x-svc-api-key': agentKey.key });
    expect(structured(await callTool(agent, 'svc_balance'))).toMatchObject({ balance_usdc: '1' });

    const revoked = await t.inject({
      method: 'DELETE',
      url: `/v1/keys/${agentKey.id}`,
      headers: { 'x-svc-api-key': acc.apiKey },
    });
    expect(revoked.statusCode).toBe(200);
    for (const [name, args] of [
      ['svc_balance', {}],
      ['svc_execute', { provider_id: providerId, endpoint: 'echo', params: { city: 'Lima' } }],
    ] as const) {
      expect(toolError(await callTool(agent, name, args)).code, name).toBe('SVC-AUTH-001');
    }
    const unknown = await client({ 'x-svc-api-key': `svc_sk_${'x'.repeat(40)}` });
    expect(toolError(await callTool(unknown, 'svc_balance')).code).toBe('SVC-AUTH-001');
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
  });

  it('an unknown tool is a protocol error', async () => {
    const c = await client();
    await expect(c.callTool({ name: 'svc_teleport', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('insufficient balance: SVC-PAY-001 with required and available amounts; nothing charged', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '0.01');
    const c = await client({ 'x-svc-api-key': acc.apiKey });
    const before = provider.hits('/echo');
    const result = await callTool(c, 'svc_execute', {
      provider_id: providerId,
      endpoint: 'echo',
      params: { city: 'Oslo' },
    });
    schemas.expectValid('svc_execute', result);
    const error = toolError(result);
    expect(error.code).toBe('SVC-PAY-001');
    expect(error.details).toMatchObject({ required_usdc: '0.012345', available_usdc: '0.010000' });
    expect(provider.hits('/echo')).toBe(before);
    expect(await balanceCredits(t, acc.accountId)).toBe(10_000n);
  });

  it('a suspended account gets SVC-AUTH-004 from every tool, and its calls are not charged', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const c = await client({ 'x-svc-api-key': acc.apiKey });
    const suspended = await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/suspend`, {
      reason: 'test',
    });
    expect(suspended.statusCode).toBe(200);
    // The connection itself still works (tools/list), the tools refuse.
    expect((await c.listTools()).tools).toHaveLength(8);
    for (const [name, args] of [
      ['svc_balance', {}],
      ['svc_execute', { provider_id: providerId, endpoint: 'echo', params: { city: 'Rome' } }],
      ['svc_discover', { query: 'echo' }],
    ] as const) {
      const result = await callTool(c, name, args);
      schemas.expectValid(name, result);
      expect(toolError(result).code, name).toBe('SVC-AUTH-004');
    }
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
  });
});
