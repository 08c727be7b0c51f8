// POST/GET/DELETE /mcp: the Streamable HTTP transport of the MCP SDK, stateless with JSON responses,
// inside the Fastify app (same hooks, request ids, logs and error handler as every route).
//
// The web-standard transport is used rather than the Node one: the Node wrapper wants the raw req/res
// (reply.hijack), which would skip Fastify's onSend hooks and reply logging. Here Fastify keeps the
// reply: the request becomes a web Request, the transport answers a web Response, and we send it.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { outputSchema, type RouteSchemas } from './schemas.js';
import { createMcpServer, type McpToolset } from './server.js';
import { internalError, runTool, ToolArguments } from './service.js';
import { TOOLS } from './tools.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The MCP transport endpoint. Each tool call runs as a request to another route, which is rate limited
     * and refused for a suspended account; the /mcp request itself is neither (with rateLimit: 'exempt';
     * docs/mcp.md).
     */
    mcpTransport?: boolean;
  }
}

export interface McpRoutesOptions {
  routeSchemas: RouteSchemas;
}

function buildToolset(routeSchemas: RouteSchemas): McpToolset {
  const listed: Tool[] = TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: outputSchema(tool, routeSchemas) as Tool['outputSchema'],
  }));
  return { tools: TOOLS, listed, args: new ToolArguments(TOOLS) };
}

function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  // Only the path matters to the transport (no DNS-rebinding check here: credentials are headers, not
  // cookies); a fixed origin spares us a Host header that may be absent.
  const url = `http://localhost${request.url}`;
  const body = typeof request.body === 'string' ? request.body : undefined;
  return new Request(url, { method: request.method, headers, body });
}

/** What the protocol says a stateless server answers to GET (no server-initiated stream) and DELETE. */
function methodNotAllowed(_request: FastifyRequest, reply: FastifyReply) {
  return reply
    .status(405)
    .header('Allow', 'POST')
    .type('application/json')
    .send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this stateless server takes POST only' },
      id: null,
    });
}

export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, opts) => {
  // Built on first use: the routes whose response schemas the tools reuse may be registered after this.
  let toolset: McpToolset | undefined;
  const tools = () => {
    toolset ??= buildToolset(opts.routeSchemas);
    return toolset;
  };

  // The transport parses the JSON-RPC itself (and answers its own parse errors), so keep the raw text.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );

  const schema = { tags: ['mcp'] };
  app.post(
    '/mcp',
    {
      schema: { ...schema, summary: 'MCP Streamable HTTP endpoint (stateless, JSON responses)' },
      config: { mcpTransport: true, rateLimit: 'exempt' },
    },
    async (request, reply) => {
      const repeated: Record<string, string> = {};
      const server = createMcpServer(tools(), async (tool, args) => {
        try {
          const outcome = await runTool(app, request, tool, args);
          Object.assign(repeated, outcome.headers);
          return outcome.result;
        } catch (err) {
          // Never a stack or an internal message to the client: the request id leads to the log line.
          request.log.error({ err, tool: tool.name }, 'mcp tool call failed');
          return internalError(request.id);
        }
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      transport.onerror = (err) => request.log.debug({ err }, 'mcp transport');
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(webRequest(request));
        reply.status(response.status);
        response.headers.forEach((value, name) => {
          reply.header(name, value);
        });
        for (const [name, value] of Object.entries(repeated)) reply.header(name, value);
        const text = await response.text();
        return reply.send(text === '' ? undefined : text);
      } finally {
        await server.close();
      }
    },
  );
  const notOffered = {
    schema: { ...schema, summary: 'Not offered: answers 405' },
    config: { mcpTransport: true, rateLimit: 'exempt' as const },
  };
  app.get('/mcp', notOffered, methodNotAllowed);
  app.delete('/mcp', notOffered, methodNotAllowed);
};
