// Every tool call counts one unit against the caller's identity-tier limit (SPEC 8.1); the protocol's own
// messages (initialize, tools/list, the GET probe) count nothing. Small limits make it quick to reach.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  connect,
  type ListeningApp,
  startListeningApp,
  structured,
  toolError,
} from './fixtures.js';

const env = {
  SVC_RATE_LIMIT_ANONYMOUS: '3',
  SVC_RATE_LIMIT_ACCOUNT: '5',
  SVC_RATE_LIMIT_WALLET_NEW: '5',
};

let t: ListeningApp;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startListeningApp({ env });
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await t.close();
});

describe('rate limits through tool calls', () => {
  it('an account: one unit per tool call, SVC-RATE-001 with retry_after_s past the limit', async () => {
    const acc = await t.createAccount();
    const c = await connect(t.url, { 'x-svc-api-key': acc.apiKey });
    clients.push(c);
    await c.listTools();
    await c.listTools();

    // Connecting and listing took nothing: this first call is the first unit.
    const status = structured(await callTool(c, 'svc_auth_status'));
    expect(status.rate_limit).toMatchObject({ limit: 5, remaining: 4 });

    for (let i = 0; i < 3; i += 1) {
      const found = await callTool(c, 'svc_discover', { query: 'anything' });
      expect(found.isError, JSON.stringify(found)).toBeFalsy();
    }
    const fifth = structured(await callTool(c, 'svc_auth_status'));
    expect(fifth.rate_limit).toMatchObject({ limit: 5, remaining: 0 });

    const refused = toolError(await callTool(c, 'svc_discover', { query: 'anything' }));
    expect(refused.code).toBe('SVC-RATE-001');
    expect(refused.details.retry_after_s).toBeGreaterThan(0);
    expect(refused.details.retry_after_s).toBeLessThanOrEqual(60);
    // Still connected: listing tools is free.
    expect((await c.listTools()).tools).toHaveLength(8);
    // The limit is the account's, whatever the connection: a second client shares it.
    const other = await connect(t.url, { 'x-svc-api-key': acc.apiKey });
    clients.push(other);
    expect(toolError(await callTool(other, 'svc_balance')).code).toBe('SVC-RATE-001');
    // A dozen sequential round trips: give a loaded machine room.
  }, 90_000);

  it('anonymous callers are limited per IP address', async () => {
    const c = await connect(t.url);
    clients.push(c);
    for (let i = 0; i < 3; i += 1) {
      expect((await callTool(c, 'svc_discover', { query: 'anything' })).isError).toBeFalsy();
    }
    expect(toolError(await callTool(c, 'svc_discover', { query: 'anything' })).code).toBe('SVC-RATE-001');
  });

  it('the /mcp response carries the X-RateLimit headers of the tool call', async () => {
    const acc = await t.createAccount();
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-svc-api-key': acc.apiKey,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'svc_auth_status', arguments: {} },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { result: { structuredContent: { tier: string } } };
    expect(body.result.structuredContent.tier).toBe('authenticated');
  });
});
