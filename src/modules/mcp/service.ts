// Runs one tool call as one request to the service's own route (app.inject), with the credentials and
// client IP of the MCP request, and turns the route's answer into a tool result. Auth, validation,
// idempotency, rate limits, the ledger and the error codes are therefore exactly those of HTTP
// (docs/mcp.md, "One implementation").
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { AppError, type ErrorCode } from '../../errors/catalogue.js';
import { fieldErrors, firstFieldError } from '../../errors/field-errors.js';
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

/** Response headers of the last tool call that the /mcp response repeats (docs/mcp.md: on every response). */
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
    // docs/mcp.md names it retry_after_s; the HTTP details' own names are kept beside it.
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

function jsonOf(res: LightMyRequestResponse): unknown {
  try {
    return res.payload === '' ? undefined : JSON.parse(res.payload);
  } catch {
    return undefined;
  }
}

function toOutcome(tool: ToolDefinition, res: LightMyRequestResponse): ToolOutcome {
  const headers: Record<string, string> = {};
  for (const name of REPEATED_HEADERS) {
    const value = res.headers[name];
    if (value !== undefined) headers[name] = String(value);
  }
  const body = jsonOf(res);
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
    const errors = fieldErrors(validate.errors);
    const first = firstFieldError(errors, 'arguments');
    const message = first ? `Invalid arguments for ${tool.name}: ${first}` : undefined;
    return errorResult(fromAppError('SVC-MCP-001', message, { tool: tool.name, errors }));
  }
}

/** `_meta` key of a tool call that carries an x402 payment, and of the result that carries its settlement. */
export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';

function forwardedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

async function inject(
  app: FastifyInstance,
  request: FastifyRequest,
  tool: ToolDefinition,
  call: { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; payload?: unknown },
): Promise<LightMyRequestResponse> {
  const res = await app.inject({
    method: call.method,
    url: call.url,
    headers: call.method === 'POST' ? { ...call.headers, 'content-type': 'application/json' } : call.headers,
    ...(call.method === 'POST' ? { payload: JSON.stringify(call.payload ?? {}) } : {}),
    // The rate limiter counts per client IP for anonymous callers: the route sees the MCP caller's.
    remoteAddress: request.ip,
  });
  request.log.info(
    { tool: tool.name, route_request_id: res.headers['x-request-id'], status: res.statusCode },
    'mcp tool call',
  );
  return res;
}

/**
 * The payment of `_meta["x402/payment"]` as the x402 route's PAYMENT-SIGNATURE header: x402's MCP transport
 * sends the PaymentPayload object; the base64 header string (what HTTP clients send) is taken as it is.
 */
function paymentHeaderOf(payment: unknown): string | undefined {
  if (typeof payment === 'string' && payment.trim() !== '') return payment.trim();
  if (isObject(payment)) return Buffer.from(JSON.stringify(payment)).toString('base64');
  return undefined;
}

function decodedSettlement(res: LightMyRequestResponse): Record<string, unknown> | undefined {
  const header = res.headers['payment-response'];
  if (typeof header !== 'string' || header === '') return undefined;
  try {
    const settlement: unknown = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    return isObject(settlement) ? settlement : undefined;
  } catch {
    return undefined;
  }
}

/**
 * svc_execute paid with x402 (docs/mcp.md): POST /x402/:providerId/:slug with the payment, if any, as
 * PAYMENT-SIGNATURE. A 402 (no payment, or one refused) becomes SVC-AUTH-001 with the payment requirements
 * in details.x402 and their x402Version, resource and accepts at the top level, where x402's MCP transport
 * looks for them; a paid answer is `{svc, data}` with the settlement in `_meta["x402/payment-response"]`.
 */
async function runPaidExecute(
  app: FastifyInstance,
  request: FastifyRequest,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  paymentHeader: string | undefined,
): Promise<ToolOutcome> {
  const headers = forwardedHeaders(request);
  if (paymentHeader !== undefined) headers['payment-signature'] = paymentHeader;
  const url = `/x402/${encodeURIComponent(String(args.provider_id))}/${encodeURIComponent(String(args.endpoint))}`;
  const res = await inject(app, request, tool, {
    method: 'POST',
    url,
    headers,
    payload: args.params,
  });
  const outcome = toOutcome(tool, res);
  const body = jsonOf(res);
  if (res.statusCode === 402 && isObject(body) && Array.isArray(body.accepts)) {
    const requirements = { x402Version: body.x402Version, resource: body.resource, accepts: body.accepts };
    const reason = typeof body.error === 'string' ? body.error : undefined;
    const resourceUrl = isObject(body.resource) ? body.resource.url : undefined;
    const error = reason
      ? fromAppError(
          'SVC-AUTH-001',
          `x402 payment refused (${reason})${typeof body.message === 'string' ? `: ${body.message}` : ''}`,
          { x402: requirements, x402_url: resourceUrl, reason },
        )
      : fromAppError(
          'SVC-AUTH-001',
          'Payment required: connect with an API key, or pay this call with x402 — sign one of accepts ' +
            'and call svc_execute again with the payment payload in _meta["x402/payment"]',
          { x402: requirements, x402_url: resourceUrl },
        );
    return { result: toolResult({ error, ...requirements }, true), headers: outcome.headers };
  }
  if (paymentHeader === undefined && res.statusCode !== 429) {
    // No payment and no quote (params invalid, unknown endpoint, chain unreachable): still the refusal
    // of an anonymous call, SVC-AUTH-001 as docs/mcp.md says, with the reason the quote failed.
    const quoteError = outcome.result.structuredContent?.error;
    const error = fromAppError('SVC-AUTH-001', undefined, {
      x402_url: `${app.deps.config.publicUrl}${url}`,
      ...(isObject(quoteError) ? { x402_error: quoteError } : {}),
    });
    return { result: errorResult(error), headers: outcome.headers };
  }
  const settlement = decodedSettlement(res);
  if (settlement) outcome.result._meta = { [PAYMENT_RESPONSE_META]: settlement };
  return outcome;
}

/** One tool call = one request to the tool's route, as the caller of the MCP request. */
export async function runTool(
  app: FastifyInstance,
  request: FastifyRequest,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<ToolOutcome> {
  // svc_execute without an account, or with an x402 payment: the x402 route (docs/mcp.md).
  if (tool.name === 'svc_execute') {
    const payment = meta[PAYMENT_META];
    if (payment !== undefined) {
      const header = paymentHeaderOf(payment);
      if (header === undefined) {
        const message = `_meta["${PAYMENT_META}"] must be an x402 PaymentPayload object or its base64 header`;
        return {
          result: errorResult(
            fromAppError('SVC-MCP-001', message, {
              tool: tool.name,
              errors: [{ path: `_meta.${PAYMENT_META}`, message: 'is invalid' }],
            }),
          ),
          headers: {},
        };
      }
      return runPaidExecute(app, request, tool, args, header);
    }
    // No credential at all (a bad one keeps the execute route's plain 401, as over HTTP).
    const { kind } = request.caller;
    if (kind === 'anonymous' || kind === 'wallet') return runPaidExecute(app, request, tool, args, undefined);
  }
  const call = tool.toRoute(args);
  const method = tool.route.slice(0, tool.route.indexOf(' ')) as 'GET' | 'POST';
  const res = await inject(app, request, tool, {
    method,
    url: call.url,
    headers: { ...call.headers, ...forwardedHeaders(request) },
    payload: call.payload,
  });
  return toOutcome(tool, res);
}
