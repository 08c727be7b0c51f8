// `svc mcp`: a stdio MCP server for desktop agents that relays every JSON-RPC message to the service's
// Streamable HTTP endpoint (`<SVC_URL>/mcp`) with the API key. A pure relay: the tools, their schemas,
// the charges and the errors are the service's own, so stdio and HTTP clients see exactly the same.
// Nothing but protocol messages may be written to stdout; diagnostics go to stderr.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  ErrorCode,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

export interface StdioBridgeOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:8080. */
  serviceUrl: string;
  /** API key sent as `x-svc-api-key`; without one the agent is anonymous (discovery only). */
  apiKey: string | undefined;
}

export async function runStdioBridge(opts: StdioBridgeOptions): Promise<void> {
  const endpoint = new URL('/mcp', opts.serviceUrl);
  const headers: Record<string, string> = opts.apiKey ? { 'x-svc-api-key': opts.apiKey } : {};
  const http = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } });
  const stdio = new StdioServerTransport();
  // The HTTP transport must send the negotiated protocol version once initialize has answered.
  const initializeIds = new Set<RequestId>();

  const relayFailure = (message: JSONRPCMessage, err: unknown) => {
    const reason = err instanceof Error ? err.message : String(err);
    process.stderr.write(`svc mcp: ${endpoint.href}: ${reason}\n`);
    if (!isJSONRPCRequest(message)) return;
    void stdio.send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: ErrorCode.InternalError, message: `Service at ${endpoint.origin} failed: ${reason}` },
    });
  };

  http.onmessage = (message) => {
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = message.result.protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    void stdio.send(message);
  };
  http.onerror = (err) => process.stderr.write(`svc mcp: ${err.message}\n`);
  stdio.onmessage = (message) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    http.send(message).catch((err: unknown) => relayFailure(message, err));
  };
  const closed = new Promise<void>((resolve) => {
    stdio.onclose = () => {
      void http.close().finally(resolve);
    };
  });
  process.stdin.once('end', () => void stdio.close());

  await http.start();
  await stdio.start();
  await closed;
}
