// Output schemas of the tools, taken from the response schemas the routes themselves declare, so the tool
// result and the HTTP answer cannot drift apart. Each admits the result or an error (docs/mcp.md: the
// official client validates structuredContent against outputSchema on error results too).
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { JsonSchema, ToolDefinition } from './tools.js';

/** 2xx response schemas by "METHOD /route/pattern", filled as the routes are registered. */
export type RouteSchemas = Map<string, JsonSchema>;

/**
 * Records the success response schema of every route registered after this call. Call it on the root
 * instance before the route plugins (an onRoute hook sees only routes added after it).
 */
export function collectRouteSchemas(app: FastifyInstance): RouteSchemas {
  const schemas: RouteSchemas = new Map();
  app.addHook('onRoute', (route: RouteOptions) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response) return;
    const success = response['200'] ?? response['201'];
    if (!success || typeof success !== 'object') return;
    // JSON round trip: a plain JSON Schema, without TypeBox's symbol keys.
    const plain = JSON.parse(JSON.stringify(success)) as JsonSchema;
    for (const method of [route.method].flat()) schemas.set(`${method} ${route.url}`, plain);
  });
  return schemas;
}

const ErrorResult: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', pattern: '^SVC-[A-Z]+-[0-9]{3}$' },
        message: { type: 'string' },
        details: { type: 'object' },
      },
    },
    // svc_execute without an account: the x402 payment requirements, where x402's MCP transport reads them.
    x402Version: { type: 'integer' },
    resource: { type: 'object' },
    accepts: { type: 'array', items: { type: 'object' } },
  },
};

/**
 * POST /v1/execute answers the provider's own body, so the route declares no response schema; its
 * `svc` block is built in src/modules/execution/service.ts (account) or src/modules/x402/service.ts (x402).
 */
const ExecuteResult: JsonSchema = {
  type: 'object',
  required: ['svc', 'data'],
  properties: {
    svc: {
      type: 'object',
      required: ['call_id', 'provider_id', 'endpoint', 'charged_usdc'],
      properties: {
        call_id: { type: 'string' },
        provider_id: { type: 'string' },
        endpoint: { type: 'string' },
        charged_usdc: { type: 'string' },
        /** Calls paid from an account balance. */
        remaining_balance_usdc: { type: 'string' },
        latency_ms: { type: 'number' },
        /** Calls paid with x402: where the payment settled (src/modules/x402/service.ts). */
        payment: {
          type: 'object',
          required: ['network', 'transaction', 'payer'],
          properties: {
            network: { type: 'string' },
            transaction: { type: 'string' },
            payer: { type: 'string' },
          },
        },
      },
    },
    data: { description: "The provider's answer (JSON; a non-JSON body as {raw_body})" },
  },
};

const OVERRIDES: Record<string, JsonSchema> = { 'POST /v1/execute/:providerId/:endpointSlug': ExecuteResult };

/** A route not (yet) registered in this build: any object, until its own schema exists. */
const AnyObject: JsonSchema = { type: 'object' };

function resultSchema(tool: ToolDefinition, routes: RouteSchemas): JsonSchema {
  const body = OVERRIDES[tool.route] ?? routes.get(tool.route);
  if (!body) return AnyObject;
  const props = (body.properties ?? {}) as Record<string, JsonSchema>;
  switch (tool.result) {
    case 'body':
      return body;
    case 'data': {
      const data = props.data;
      return data?.type === 'object' ? data : AnyObject;
    }
    case 'body_without_meta': {
      const { meta: _meta, ...rest } = props;
      const required = Array.isArray(body.required) ? body.required.filter((r) => r !== 'meta') : [];
      return { ...body, properties: rest, required };
    }
  }
}

export function outputSchema(tool: ToolDefinition, routes: RouteSchemas): JsonSchema {
  return { type: 'object', anyOf: [resultSchema(tool, routes), ErrorResult] };
}
