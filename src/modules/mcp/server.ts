// The MCP server proper: the SDK's low-level `Server` with JSON Schema tools (docs/mcp.md says why not
// McpServer.registerTool: it takes Zod and answers bad arguments itself, where we answer SVC-MCP-001).
// Stateless: one Server per HTTP request, built from the per-app tool set.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolArguments } from './service.js';
import type { ToolDefinition } from './tools.js';

export const SERVER_INFO = { name: 'svc-marketplace', version: '1.0.0' };

const INSTRUCTIONS =
  'Capability marketplace: paid API endpoints an agent can find and call, paid per call from a prepaid ' +
  'USDC balance. Typical flow: svc_discover (free) → svc_get_endpoint (free) → svc_execute (charged the ' +
  "endpoint's price) → svc_balance / svc_call_history. Errors come back as tool results with an SVC-* " +
  'code in structuredContent.error. Every tool call counts against the rate limit shown by svc_auth_status.';

const FIND_AND_CALL = {
  name: 'find_and_call',
  title: 'Find and call a capability',
  description: 'Find the best-fitting paid endpoint for a task and call it within a price ceiling',
  arguments: [
    { name: 'task', description: 'What needs doing, in plain words', required: true },
    { name: 'max_price_usdc', description: 'Most you will pay for one call (default 0.05)', required: false },
  ],
};

function findAndCallText(task: string, maxPrice: string): string {
  return [
    `Task: ${task}`,
    '',
    `1. Call svc_discover with query set to the task and max_price_per_call ${maxPrice}.`,
    '2. Pick the result with the best relevance_score and quality (uptime_pct high, error_rate_pct low).',
    '3. Call svc_get_endpoint for it and build params that satisfy its parameter schema exactly.',
    '4. Call svc_execute with provider_id, endpoint (the endpoint_slug), params and a fresh idempotency_key;',
    '   if it fails with a network error, retry with the same idempotency_key (you are not charged twice).',
    '5. Report the answer (data) and what it cost (svc.charged_usdc, svc.remaining_balance_usdc).',
    'If svc_execute returns SVC-PAY-001 the balance is too low: call svc_deposit_info and tell the user.',
    'If it returns SVC-EXE-004 or SVC-EXE-005 the call was refunded: try the next-ranked endpoint.',
  ].join('\n');
}

export interface McpToolset {
  tools: readonly ToolDefinition[];
  /** The tools as tools/list shows them (input and output schemas included). */
  listed: Tool[];
  args: ToolArguments;
}

export type RunTool = (
  tool: ToolDefinition,
  args: Record<string, unknown>,
  meta: Record<string, unknown>,
) => Promise<CallToolResult>;

export function createMcpServer(toolset: McpToolset, run: RunTool): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, prompts: {} },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolset.listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = toolset.tools.find((t) => t.name === request.params.name);
    // An unknown tool is a protocol error, not a tool result (MCP spec, tools: error handling).
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = request.params.arguments ?? {};
    // `_meta` carries per-call extras such as an x402 payment (`x402/payment`, docs/mcp.md).
    return toolset.args.check(tool, args) ?? (await run(tool, args, request.params._meta ?? {}));
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [FIND_AND_CALL] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== FIND_AND_CALL.name) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    }
    const task = request.params.arguments?.task;
    if (!task) throw new McpError(ErrorCode.InvalidParams, 'Argument "task" is required');
    const maxPrice = request.params.arguments?.max_price_usdc ?? '0.05';
    return {
      description: FIND_AND_CALL.description,
      messages: [{ role: 'user', content: { type: 'text', text: findAndCallText(task, maxPrice) } }],
    };
  });
  return server;
}
