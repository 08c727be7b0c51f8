// `npx svc mcp`: the stdio relay, spawned as a desktop agent would, forwarding to the real app on a port.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceCredits, fund, registerProvider } from '../execution/fixtures.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { type ListeningApp, OutputSchemas, startListeningApp, structured, toolError } from './fixtures.js';

let t: ListeningApp;
let provider: ProviderServer;
let client: Client;
let accountId: string;
let providerId: string;

beforeAll(async () => {
  t = await startListeningApp();
  provider = await startProviderServer();
  providerId = (
    await registerProvider(t, provider.url, [
      {
        slug: 'echo',
        price_usdc: '0.000777',
        parameters: { n: { type: 'integer', required: true, description: 'a number' } },
      },
    ])
  ).providerId;
  const acc = await t.createAccount();
  accountId = acc.accountId;
  await fund(t, accountId, '0.01');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  client = new Client({ name: 'svc-stdio-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: 'npx',
      args: ['--no-install', 'svc', 'mcp'],
      env: { ...env, SVC_URL: t.url, SVC_API_KEY: acc.apiKey },
      stderr: 'pipe',
    }),
  );
}, 180_000);

afterAll(async () => {
  await client?.close();
  await t.close();
  await provider.close();
});

describe('svc mcp (stdio)', () => {
  it('relays tools/list, a paid call and the balance, with the API key of SVC_API_KEY', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(8);
    const schemas = new OutputSchemas(tools);

    const executed = (await client.callTool({
      name: 'svc_execute',
      arguments: { provider_id: providerId, endpoint: 'echo', params: { n: 1 } },
    })) as CallToolResult;
    schemas.expectValid('svc_execute', executed);
    expect(structured(executed)).toMatchObject({
      svc: { charged_usdc: '0.000777', remaining_balance_usdc: '0.009223' },
      data: { received: { n: 1 } },
    });

    const balance = (await client.callTool({ name: 'svc_balance', arguments: {} })) as CallToolResult;
    schemas.expectValid('svc_balance', balance);
    expect(structured(balance)).toMatchObject({ balance_usdc: '0.009223' });
    expect(await balanceCredits(t, accountId)).toBe(9_223n);
  });

  it('relays error results unchanged', async () => {
    const bad = (await client.callTool({ name: 'svc_discover', arguments: { limit: 5 } })) as CallToolResult;
    expect(toolError(bad).code).toBe('SVC-MCP-001');
  });
});
