// MCP test setup: the real app listening on a free loopback port, and the SDK's own Client connected to
// it over Streamable HTTP with whatever credential headers the test gives.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';

export interface ListeningApp extends TestApp {
  url: string;
}

export async function startListeningApp(opts: TestAppOptions = {}): Promise<ListeningApp> {
  const t = await createTestApp(opts);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return Object.assign(t, { url: `http://127.0.0.1:${port}` });
}

export async function connect(baseUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function structured(result: CallToolResult): Record<string, unknown> {
  expect(result.structuredContent, JSON.stringify(result)).toBeTypeOf('object');
  // The text content carries the same JSON (for clients that read only text).
  const text = result.content[0];
  expect(text?.type).toBe('text');
  expect(JSON.parse((text as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

/** The SVC error of an error result: isError set and structuredContent.error with the code. */
export function toolError(result: CallToolResult): {
  code: string;
  message: string;
  details: Record<string, unknown>;
} {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  const error = structured(result).error as {
    code: string;
    message: string;
    details: Record<string, unknown>;
  };
  expect(error.code).toMatch(/^SVC-[A-Z]+-\d{3}$/);
  expect(error.message).toBeTypeOf('string');
  return error;
}

/** Validates every result against its tool's declared outputSchema with our own Ajv (not the client's). */
export class OutputSchemas {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  constructor(private readonly tools: Tool[]) {}

  expectValid(name: string, result: CallToolResult) {
    const tool = this.tools.find((t) => t.name === name);
    expect(tool?.outputSchema, `${name} declares an outputSchema`).toBeDefined();
    const validate = this.ajv.compile(tool?.outputSchema as object);
    const ok = validate(result.structuredContent);
    expect(
      ok,
      `${name}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(result.structuredContent)}`,
    ).toBe(true);
  }
}
