// Runs one tool call as one request to the service's own route (app.inject), with the credentials and
// client IP of the MCP request, and turns the route's answer into a tool result. Auth, validation,
// idempotency, rate limits, the ledger and the error codes are therefore exactly those of HTTP
// (docs/mcp.md, "One implementation").
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { AppError, type ErrorCode } from '../../errors/catalogue.js';
import type { ToolDefinition } from './tools.js';

/** Request headers that carry the caller's identity or a per-call choice, passed to the route as is. */
const FORWARDED_HEADERS = [
  'authorization',
  'x-svc-api-key',
  'x-svc-wallet',
  'x-svc-signature',
  'x-svc-nonce',
  'x-svc-max-price-usdc',
  'cache-control',
  'user-agent',
] as const;

/** Response headers of the last tool call that the /mcp response repeats (SPEC 8.3: on every response). */
const REPEATED_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

export interface ToolOutcome {
  result: CallToolResult;
  headers: Record<string, string>;
}

interface ErrorResult {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function toolResult(structured: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

export function errorResult(error: ErrorResult): CallToolResult {
  return toolResult({ error }, true);
}

/** SVC-SYS-001 as a tool result, quoting the request id of the /mcp request. */
export function internalError(requestId: string): CallToolResult {
  return errorResult(
    fromAppError('SVC-SYS-001', `Internal error; quote request id ${requestId}`, { request_id: requestId }),
  );
}

function fromAppError(code: ErrorCode, message?: string, details: Record<string, unknown> = {}) {
  const err = new AppError(code, message, details);
  return { code: err.code, message: err.message, details: err.details };
}

/** The error of a non-2xx answer, whichever catalogue shape (A or B) it came in. */
function routeError(res: LightMyRequestResponse, body: unknown): ErrorResult {
  const fromShape = (): ErrorResult | undefined => {
    if (!isObject(body)) return undefined;
    const a = body.error;
    if (isObject(a) && typeof a.code === 'string' && typeof a.message === 'string') {
      return { code: a.code, message: a.message, details: isObject(a.details) ? a.details : {} };
    }
    if (typeof body.code === 'string' && typeof body.message === 'string') {
      return { code: body.code, message: body.message, details: isObject(body.details) ? body.details : {} };
    }
    return undefined;
  };
  const error = fromShape() ?? fromAppError('SVC-SYS-001');
  const retryAfter = Number(res.headers['retry-after']);
  if (error.code === 'SVC-RATE-001' && Number.isFinite(retryAfter)) {
    // DESIGN.md 13 names it retry_after_s; the HTTP details' own names are kept beside it.
    error.details = { ...error.details, retry_after_s: retryAfter };
  }
  return error;
}

function resultOf(tool: ToolDefinition, body: Record<string, unknown>): Record<string, unknown> {
  switch (tool.result) {
    case 'body':
      return body;
    case 'data':
      return isObject(body.data) ? body.data : { data: body.data };
    case 'body_without_meta': {
      const { meta: _meta, ...rest } = body;
      return rest;
    }
  }
}

function toOutcome(tool: ToolDefinition, res: LightMyRequestResponse): ToolOutcome {
  const headers: Record<string, string> = {};
  for (const name of REPEATED_HEADERS) {
    const value = res.headers[name];
    if (value !== undefined) headers[name] = String(value);
  }
  let body: unknown;
  try {
    body = res.payload === '' ? undefined : JSON.parse(res.payload);
  } catch {
    body = undefined;
  }
  if (res.statusCode < 300 && isObject(body))
    return { result: toolResult(resultOf(tool, body), false), headers };
  // A provider 4xx through execute: charged, answered in the execute shape with the provider's status.
  if (isObject(body) && isObject(body.svc) && 'data' in body)
    return { result: toolResult(body, true), headers };
  return { result: errorResult(routeError(res, body)), headers };
}

/** Compiled argument validators, built once per app. */
export class ToolArguments {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(tools: readonly ToolDefinition[]) {
    // No defaults and no coercion: the arguments reach the route exactly as the model sent them.
    const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false, coerceTypes: false });
    for (const tool of tools) this.validators.set(tool.name, ajv.compile(tool.inputSchema));
  }

  /** SVC-MCP-001 with the failing paths, or undefined when the arguments fit the tool's schema. */
  check(tool: ToolDefinition, args: unknown): CallToolResult | undefined {
    const validate = this.validators.get(tool.name);
    if (!validate || validate(args)) return undefined;
    const errors = (validate.errors ?? []).map((e: ErrorObject) => {
      const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const extra = e.params.additionalProperty ?? e.params.missingProperty;
      const path = typeof extra === 'string' ? (base ? `${base}.${extra}` : extra) : base;
      const message = e.params.additionalProperty ? 'is not allowed' : (e.message ?? 'is invalid');
      return { path, message };
    });
    const first = errors[0];
    const message = first
      ? `Invalid arguments for ${tool.name}: ${first.path || 'arguments'} ${first.message}`
      : undefined;
    return errorResult(fromAppError('SVC-MCP-001', message, { tool: tool.name, errors }));
  }
}

/** One tool call = one request to the tool's route, as the caller of the MCP request. */
export async function runTool(
  app: FastifyInstance,
  request: FastifyRequest,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  const call = tool.toRoute(args);
  const method = tool.route.slice(0, tool.route.indexOf(' ')) as 'GET' | 'POST';
  const headers: Record<string, string> = { ...call.headers };
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // Anonymous svc_execute answers the route's 401 SVC-AUTH-001 (details.x402_url once x402 exists). The
  // x402 seam (DESIGN.md 13): when `_meta["x402/payment"]` is present, run POST /x402/:providerId/:slug
  // with that payment as PAYMENT-SIGNATURE instead, and put its requirements in the error's details.
  const res = await app.inject({
    method,
    url: call.url,
    headers: method === 'POST' ? { ...headers, 'content-type': 'application/json' } : headers,
    ...(method === 'POST' ? { payload: JSON.stringify(call.payload ?? {}) } : {}),
    // The rate limiter counts per client IP for anonymous callers: the route sees the MCP caller's.
    remoteAddress: request.ip,
  });
  request.log.info(
    { tool: tool.name, route_request_id: res.headers['x-request-id'], status: res.statusCode },
    'mcp tool call',
  );
  return toOutcome(tool, res);
}
