// The eight MCP tools (docs/mcp.md). Each tool is a description for a model, a JSON Schema for
// its arguments, and the HTTP route it runs: the tool layer translates arguments into that route's
// request and the route's answer back into a tool result. Discovery, execution, the ledger, auth and
// rate limits are the routes' own (see docs/mcp.md, "One implementation").
import { CATEGORIES } from '../catalog/index.js';
import { DISCOVER_LIMIT_MAX } from '../discovery/index.js';

export type JsonSchema = Record<string, unknown>;
type Args = Record<string, unknown>;

/** What a tool call becomes: one request to one of the service's own routes. */
export interface RouteCall {
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  /** "METHOD /route/pattern" the tool runs, as registered (also the key of its response schema). */
  route: `${'GET' | 'POST'} /${string}`;
  toRoute(args: Args): RouteCall;
  /**
   * Which part of the route's 2xx body is the tool's result: the `data` of an envelope, the whole body
   * without its `meta` (lists: `{data, pagination}`), or the body as it is (discover, execute).
   */
  result: 'data' | 'body_without_meta' | 'body';
}

const seg = (value: unknown) => encodeURIComponent(String(value));
const NO_ARGS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };
const ID = { type: 'string', minLength: 1, maxLength: 128 };

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'svc_discover',
    title: 'Find paid API endpoints',
    description:
      'Search the marketplace for API endpoints (capabilities) that can do a task, ranked by relevance. ' +
      'Free; no account needed. Each result has provider_id and endpoint_slug, its price per call in USDC ' +
      '(pricing.price_per_call_usdc), quality (uptime, latency) and the parameters it takes. Next: ' +
      'svc_get_endpoint for the full parameter schema of a result, then svc_execute to call it. With an ' +
      'agent key (an API key with a spending policy), only what the key may call is listed.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 2000,
          description:
            'What you need, in plain words (e.g. "current weather for a city"). Text in quotes is read as ' +
            'the payload, not the task, and favours endpoints that take a text: "translate \'check my ' +
            'balance\' into Spanish" finds translation. ' +
            'Include the value you hold (an IP or e-mail address, a URL, a domain, a 0x address, a tx hash, ' +
            'a phone number, an amount such as "2.5 ETH", a date, coordinates, a link to an image or PDF), quoted ' +
            'or not: endpoints that take it rank higher',
        },
        category: { type: 'string', enum: [...CATEGORIES], description: 'Only this category' },
        max_price_per_call: {
          type: 'number',
          minimum: 0,
          maximum: 1_000_000_000,
          description: 'Highest acceptable price per call in USDC, inclusive (e.g. 0.01)',
        },
        min_uptime_pct: {
          type: 'number',
          minimum: 0,
          maximum: 100,
          description: 'Lowest acceptable uptime over the last 24 hours, percent, inclusive',
        },
        limit: { type: 'integer', minimum: 1, maximum: DISCOVER_LIMIT_MAX, description: 'Default 10' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    route: 'POST /v1/discover',
    toRoute: (args) => {
      const filters: Args = {};
      for (const key of ['category', 'max_price_per_call', 'min_uptime_pct'] as const) {
        if (args[key] !== undefined) filters[key] = args[key];
      }
      // An agent key sees only what its policy lets it call; for any other caller this changes nothing.
      const payload: Args = { query: args.query, allowed_only: true };
      if (Object.keys(filters).length > 0) payload.filters = filters;
      if (args.limit !== undefined) payload.limit = args.limit;
      return { url: '/v1/discover', payload };
    },
    result: 'body',
  },
  {
    name: 'svc_get_endpoint',
    title: 'Endpoint details',
    description:
      'Full details of one endpoint: HTTP method, the JSON Schema of its parameters, its response schema, ' +
      'price per call in USDC and quality metrics. Free; no account needed. Use it before svc_execute to ' +
      'build valid params.',
    inputSchema: {
      type: 'object',
      properties: {
        provider_id: { ...ID, description: 'provider_id from svc_discover' },
        endpoint: { ...ID, description: 'endpoint_slug from svc_discover' },
      },
      required: ['provider_id', 'endpoint'],
      additionalProperties: false,
    },
    route: 'GET /v1/providers/:providerId/endpoints/:slug',
    toRoute: (args) => ({
      url: `/v1/providers/${seg(args.provider_id)}/endpoints/${seg(args.endpoint)}`,
    }),
    result: 'data',
  },
  {
    name: 'svc_execute',
    title: 'Call a paid endpoint',
    description:
      "Call an endpoint and pay its price per call from the account's prepaid balance (needs an API key " +
      'or wallet signature on the connection). Result: {svc: {call_id, charged_usdc, ' +
      'remaining_balance_usdc, latency_ms, ...}, data: <the provider answer>}. A provider error (5xx) or ' +
      'timeout is refunded automatically; a provider 4xx (bad params) is charged, so check the params ' +
      'against svc_get_endpoint first. Pass an idempotency_key to retry safely without paying twice. ' +
      'Errors: SVC-PAY-001 balance too low (see svc_deposit_info), SVC-EXE-003 params invalid, ' +
      "SVC-CREDIT-002 a spend limit or the API key's budget (details.limitType), SVC-AUTH-005 the key may " +
      'not call this provider. Without ' +
      'an account: SVC-AUTH-001 with the x402 payment requirements (accepts); sign one with an x402 client ' +
      'and call again with the PaymentPayload in _meta["x402/payment"] to pay this one call in USDC.',
    inputSchema: {
      type: 'object',
      properties: {
        provider_id: { ...ID, description: 'provider_id from svc_discover' },
        endpoint: { ...ID, description: 'endpoint_slug from svc_discover' },
        params: {
          type: 'object',
          description: "The endpoint's parameters, as its parameter schema describes",
        },
        idempotency_key: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          description: 'Same key = same call: a retry returns the first answer and is not charged again',
        },
      },
      required: ['provider_id', 'endpoint', 'params'],
      additionalProperties: false,
    },
    route: 'POST /v1/execute/:providerId/:endpointSlug',
    toRoute: (args) => ({
      url: `/v1/execute/${seg(args.provider_id)}/${seg(args.endpoint)}`,
      payload: args.params,
      headers:
        typeof args.idempotency_key === 'string' ? { 'idempotency-key': args.idempotency_key } : undefined,
    }),
    result: 'body',
  },
  {
    name: 'svc_balance',
    title: 'Balance',
    description:
      'The prepaid balance in USDC, credits held for calls still running, and lifetime deposits and ' +
      'spend. Free; needs an account. When the balance is too low for a call, see svc_deposit_info.',
    inputSchema: NO_ARGS,
    route: 'GET /v1/wallet/balance',
    toRoute: () => ({ url: '/v1/wallet/balance' }),
    result: 'data',
  },
  {
    name: 'svc_call_history',
    title: 'Call and payment history',
    description:
      'Ledger entries of the account, newest first: calls (charges), refunds, deposits. Free; needs an ' +
      'account. Page with the returned pagination.next_cursor.',
    inputSchema: {
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Default 20' },
        cursor: { type: 'string', minLength: 1, maxLength: 200, description: 'pagination.next_cursor' },
        type: { type: 'string', enum: ['call', 'deposit', 'refund', 'settlement'] },
      },
      additionalProperties: false,
    },
    route: 'GET /v1/wallet/history',
    toRoute: (args) => {
      const query = new URLSearchParams();
      for (const key of ['limit', 'cursor', 'type'] as const) {
        if (args[key] !== undefined) query.set(key, String(args[key]));
      }
      const qs = query.toString();
      return {
        url: `/v1/wallet/history${qs ? `?${qs}` : ''}`,
      };
    },
    result: 'body_without_meta',
  },
  {
    name: 'svc_deposit_info',
    title: 'How to add funds',
    description:
      'Where and how to deposit USDC on-chain to top up the balance: the platform wallet, network, ' +
      'token contract and minimum. Free; needs an account. After sending USDC from a wallet linked to ' +
      'the account, call svc_submit_deposit with the transaction hash.',
    inputSchema: NO_ARGS,
    route: 'GET /v1/wallet/deposit-address',
    toRoute: () => ({
      url: '/v1/wallet/deposit-address',
    }),
    result: 'data',
  },
  {
    name: 'svc_submit_deposit',
    title: 'Claim an on-chain deposit',
    description:
      'Credit a USDC transfer to the platform wallet to the balance, by its transaction hash. The ' +
      'transfer must come from a wallet linked to the account and be at least the minimum deposit; ' +
      'each transaction is credited once. SVC-PAY-006 means not confirmed yet: retry in a few seconds.',
    inputSchema: {
      type: 'object',
      properties: {
        tx_hash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: '0x + 64 hex digits' },
      },
      required: ['tx_hash'],
      additionalProperties: false,
    },
    route: 'POST /v1/wallet/deposit',
    toRoute: (args) => ({
      url: '/v1/wallet/deposit',
      payload: { tx_hash: args.tx_hash },
    }),
    result: 'data',
  },
  {
    name: 'svc_auth_status',
    title: 'Who am I',
    description:
      'How this connection is identified (anonymous, wallet_identified or authenticated), the account ' +
      'and wallet, the trust tier and the rate limit (limit, remaining, reset). Every tool call, this ' +
      'one included, counts against that rate limit.',
    inputSchema: NO_ARGS,
    route: 'GET /v1/auth/status',
    toRoute: () => ({ url: '/v1/auth/status' }),
    result: 'data',
  },
];
