// Request and response schemas of POST /v1/discover (docs/discovery.md).
import { type Static, Type } from '@sinclair/typebox';
import { ErrorShapeA } from '../../http/envelope.js';
import { CATEGORIES } from '../catalog/index.js';
import { WEAK_MATCH_BELOW } from './ranking/match-quality.js';

export const DISCOVER_LIMIT_DEFAULT = 10;
export const DISCOVER_LIMIT_MAX = 50;

export const DiscoverFiltersSchema = Type.Object(
  {
    category: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...CATEGORIES] })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20 })),
    max_price_per_call: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1_000_000_000, description: 'USDC ceiling, inclusive' }),
    ),
    min_uptime_pct: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'inclusive' })),
    method: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'HTTP method, any case' })),
  },
  { additionalProperties: false },
);

export const DiscoverBodySchema = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'natural-language description of the capability. Text in quotes is read as the payload to be ' +
          'processed, not as what is asked for, and endpoints that take a text rank higher: "translate ' +
          "'check my balance' into Spanish\" asks for translation. " +
          'Include the value you hold (an IP or e-mail address, a URL or domain, a 0x address, a transaction ' +
          'hash, a phone number, an amount such as "2.5 ETH" or "$20", a date such as "4 November 2023", ' +
          'coordinates such as "40.7484,-73.9857", a link to an image, recording or PDF), quoted or not: ' +
          'endpoints whose parameters take it rank higher',
      }),
    ),
    filters: Type.Optional(DiscoverFiltersSchema),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: DISCOVER_LIMIT_MAX, default: DISCOVER_LIMIT_DEFAULT }),
    ),
    allowed_only: Type.Optional(
      Type.Boolean({ description: "Only what the caller's API key policy allows it to call (docs/keys.md)" }),
    ),
  },
  { additionalProperties: false },
);
export type DiscoverBody = Static<typeof DiscoverBodySchema>;

const OpenObject = Type.Object({}, { additionalProperties: true });

export const DiscoverResultSchema = Type.Object({
  provider_id: Type.String(),
  provider_name: Type.String(),
  endpoint_slug: Type.String(),
  description: Type.String(),
  category: Type.String(),
  tags: Type.Array(Type.String()),
  pricing: Type.Object({ model: Type.Literal('per_call'), price_per_call_usdc: Type.String() }),
  quality: Type.Object({
    uptime_pct: Type.Number(),
    avg_latency_ms: Type.Number(),
    error_rate_pct: Type.Number(),
    total_calls: Type.Number(),
  }),
  endpoint: Type.Object({
    method: Type.String(),
    parameters: OpenObject,
    request_schema: Type.Optional(OpenObject),
    response_schema: Type.Optional(OpenObject),
  }),
  relevance_score: Type.Number({ minimum: 0, maximum: 1 }),
});

export const DiscoverResponseSchema = Type.Object({
  results: Type.Array(DiscoverResultSchema),
  meta: Type.Object({
    request_id: Type.String(),
    total_results: Type.Integer(),
    query_time_ms: Type.Number(),
    match_quality: Type.Optional(
      Type.Unsafe<'good' | 'weak' | 'none'>({
        type: 'string',
        enum: ['good', 'weak', 'none'],
        description:
          'Only with a query. How well the first result answers it: good; weak (match_strength below ' +
          `${WEAK_MATCH_BELOW}: most likely nothing in the catalogue does what was asked, the results are only ` +
          'the closest things); none (no result at all).',
      }),
    ),
    match_strength: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          "Only with a query. Geometric mean of the first result's relevance and the weighted share of the " +
          "query's words (names, numbers and domains left out) that it contains or has a close synonym of; " +
          'scaled by 0.4 when the word the query starts with is an ask it does not cover ("book a flight"), ' +
          'by 0.35 when the query asks for an action (book, order, register, send, ...) and the first ' +
          'result is a read-only GET endpoint, and, when the query was read for its meaning, by how far the ' +
          'endpoint closest to it in meaning stands out from the rest of the catalogue (whole from 0.3 above ' +
          'the mean cosine).',
      }),
    ),
  }),
});

export const discoverRouteSchema = {
  tags: ['discovery'],
  summary: 'Find endpoints by a natural-language query and/or filters',
  body: DiscoverBodySchema,
  response: { 200: DiscoverResponseSchema, 400: ErrorShapeA },
};
