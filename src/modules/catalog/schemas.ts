// TypeBox schemas of the catalogue: the admin input (docs/catalog.md) and the public shapes
// (docs/catalog.md). Checks a schema cannot express (unique slugs, positive prices, URL
// rules, consistent parameter extras) live in validate.ts.

import { type Static, Type } from '@sinclair/typebox';
import { CursorPagination, Envelope, MetaSchema } from '../../http/envelope.js';
import { PathId } from '../../http/path-ids.js';

export const CATEGORIES = ['data_intelligence', 'ai_ml', 'communication', 'blockchain', 'utility'] as const;
export type Category = (typeof CATEGORIES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const VALUE_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;

/** Lowercase letters, digits and single dashes, 1-64 chars: provider ids and endpoint slugs. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}$';
const TAG_PATTERN = '^[a-z0-9](?:[a-z0-9 ._+#/-]{0,46}[a-z0-9+#])?$';
/** Parameter and response field names: identifier-like, so they work as JSON keys and query names. */
const FIELD_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$';

/** A string enum as one JSON Schema `enum` (one clear error instead of one per anyOf branch). */
const StringEnum = <T extends string>(values: readonly T[]) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values] });

const Slug = Type.String({ pattern: SLUG_PATTERN, maxLength: 64 });
const Tags = Type.Array(Type.String({ pattern: TAG_PATTERN, maxLength: 48 }), { maxItems: 20 });
const ValueType = StringEnum(VALUE_TYPES);
const Scalar = Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] });

/**
 * One request parameter. `type`, `required` and `description` are the documented fields (docs/catalog.md); the rest are optional
 * JSON Schema keywords the execution module enforces when validating a call.
 */
export const ParameterSchema = Type.Object(
  {
    type: ValueType,
    required: Type.Boolean(),
    description: Type.String({ maxLength: 1000 }),
    enum: Type.Optional(Type.Array(Scalar, { minItems: 1, maxItems: 100 })),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    minLength: Type.Optional(Type.Integer({ minimum: 0 })),
    maxLength: Type.Optional(Type.Integer({ minimum: 0 })),
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    format: Type.Optional(StringEnum(['email', 'uri', 'date', 'date-time', 'uuid'])),
    items: Type.Optional(Type.Object({ type: ValueType }, { additionalProperties: false })),
    maxItems: Type.Optional(Type.Integer({ minimum: 0 })),
    default: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type ParameterInput = Static<typeof ParameterSchema>;

export const ResponseFieldSchema = Type.Object(
  {
    type: ValueType,
    enum: Type.Optional(Type.Array(Scalar, { minItems: 1, maxItems: 100 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    items: Type.Optional(Type.Object({ type: ValueType }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

const FieldMap = <T extends typeof ParameterSchema | typeof ResponseFieldSchema>(value: T) =>
  Type.Record(Type.String({ pattern: FIELD_NAME_PATTERN }), value, {
    additionalProperties: false,
    maxProperties: 100,
  });

export const PricingSchema = Type.Object(
  {
    model: Type.Literal('per_call'),
    /** Positive decimal string, at most 6 decimals (checked in validate.ts for a clear message). */
    price_per_call_usdc: Type.String({ minLength: 1, maxLength: 32 }),
  },
  { additionalProperties: false },
);

export const EndpointInputSchema = Type.Object(
  {
    slug: Slug,
    method: StringEnum(HTTP_METHODS),
    path: Type.Optional(Type.String({ pattern: "^/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$", maxLength: 512 })),
    description: Type.String({ minLength: 1, maxLength: 2000 }),
    tags: Type.Optional(Tags),
    parameters: FieldMap(ParameterSchema),
    response_schema: Type.Optional(FieldMap(ResponseFieldSchema)),
    pricing: PricingSchema,
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60000 })),
  },
  { additionalProperties: false },
);
export type EndpointInput = Static<typeof EndpointInputSchema>;

export const ProviderInputSchema = Type.Object(
  {
    provider_id: Type.Optional(Slug),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.String({ maxLength: 2000 }),
    category: StringEnum(CATEGORIES),
    website: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    base_url: Type.String({ minLength: 1, maxLength: 2048 }),
    tags: Type.Optional(Tags),
    endpoints: Type.Array(EndpointInputSchema, { minItems: 1, maxItems: 200 }),
  },
  { additionalProperties: false },
);
export type ProviderInput = Static<typeof ProviderInputSchema>;

/**
 * What the admin API takes: the provider body plus, optionally, the account that owns the listing (its
 * earnings go to that account; null clears it; absent on a replace keeps the current owner).
 */
export const AdminProviderInputSchema = Type.Object(
  {
    ...ProviderInputSchema.properties,
    owner_account_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type AdminProviderInput = Static<typeof AdminProviderInputSchema>;

export const PROVIDER_STATUSES = ['active', 'pending_review'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

// ---- public shapes ----

export const PricingView = Type.Object({
  model: Type.Literal('per_call'),
  price_per_call_usdc: Type.String(),
});
export const QualityView = Type.Object({
  uptime_pct: Type.Number(),
  avg_latency_ms: Type.Number(),
  error_rate_pct: Type.Number(),
  total_calls: Type.Number(),
});
const JsonObject = Type.Record(Type.String(), Type.Unknown());

export const EndpointSummaryView = Type.Object({
  slug: Type.String(),
  method: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  pricing: PricingView,
});

export const EndpointView = Type.Object({
  slug: Type.String(),
  method: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  parameters: JsonObject,
  response_schema: JsonObject,
  pricing: PricingView,
  quality: QualityView,
});

const providerFields = {
  provider_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  category: Type.String(),
  website: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
};

export const ProviderSummaryView = Type.Object({
  ...providerFields,
  endpoints: Type.Array(EndpointSummaryView),
});
export const ProviderView = Type.Object({ ...providerFields, endpoints: Type.Array(EndpointView) });

export const EndpointDetailView = Type.Object({
  provider_id: Type.String(),
  provider_name: Type.String(),
  category: Type.String(),
  ...EndpointView.properties,
  request_schema: JsonObject,
  timeout_ms: Type.Number(),
});

/** What the admin API answers: the public view plus what only the operator may see. */
export const AdminProviderView = Type.Object({
  ...providerFields,
  base_url: Type.String(),
  owner_account_id: Type.Union([Type.String(), Type.Null()]),
  status: StringEnum(PROVIDER_STATUSES),
  endpoints: Type.Array(
    Type.Object({
      ...EndpointView.properties,
      path: Type.String(),
      timeout_ms: Type.Number(),
    }),
  ),
});
export const CreatedProviderView = Type.Object({
  ...AdminProviderView.properties,
  provider_secret: Type.String(),
});

export const ListProvidersQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  category: Type.Optional(StringEnum(CATEGORIES)),
});

export const ProviderParams = Type.Object({ providerId: PathId(200) });
export const EndpointParams = Type.Object({
  providerId: PathId(200),
  slug: PathId(200),
});

export const ProviderListResponse = Type.Object({
  data: Type.Array(ProviderSummaryView),
  pagination: CursorPagination,
  meta: MetaSchema,
});
export const ProviderResponse = Envelope(ProviderView);
export const EndpointResponse = Envelope(EndpointDetailView);
export const AdminProviderResponse = Envelope(AdminProviderView);
export const CreatedProviderResponse = Envelope(CreatedProviderView);
export const DeletedProviderResponse = Envelope(
  Type.Object({ provider_id: Type.String(), deleted: Type.Literal(true) }),
);
